// Template: $$LABEL$$ as in vectors/upsert. Vectors of the kind in every workspace (answered by the count store).
MATCH (v:$$LABEL$$)
RETURN count(v) AS total
