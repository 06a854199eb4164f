// Template: $$INDEX$$, $$LABEL$$ and $$PROPERTY$$ are fixed names built from the vector kind and dimension.
// Unquantised: the index's own scores are then exact cosines, and searches need not read the stored vectors.
CREATE VECTOR INDEX $$INDEX$$ IF NOT EXISTS
FOR (v:$$LABEL$$) ON (v.$$PROPERTY$$)
OPTIONS {indexConfig: {
  `vector.dimensions`: $dimension,
  `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false
}}
