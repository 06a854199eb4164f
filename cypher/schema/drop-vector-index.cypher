// Template: $$INDEX$$ is a vector index name built from the vector kind and dimension (as in schema/vector-index).
DROP INDEX $$INDEX$$ IF EXISTS
