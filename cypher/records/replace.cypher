// Template: $$LABEL$$ as in records/insert. Writes the whole updated record (read in the same transaction).
MATCH (n:$$LABEL$$ {id: $id})
SET n = $fields, n.record = $record
RETURN n.record AS record
