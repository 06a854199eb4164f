// Template: $$LABEL$$ as in records/insert.
MATCH (n:$$LABEL$$ {id: $id})
RETURN n.record AS record
