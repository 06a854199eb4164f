// Template: $$LABEL$$ as in records/insert. Takes the record's write lock, held to the end of the transaction: a
// concurrent writer has committed by the time it is granted, so a read that follows in the transaction is current.
MATCH (n:$$LABEL$$ {id: $id})
SET n.locked = true
REMOVE n.locked
