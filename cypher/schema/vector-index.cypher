// Template: $$INDEX$$, $$LABEL$$ and $$PROPERTY$$ are fixed names built from the vector kind and dimension.
CREATE VECTOR INDEX $$INDEX$$ IF NOT EXISTS
FOR (v:$$LABEL$$) ON (v.$$PROPERTY$$)
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine'}}
