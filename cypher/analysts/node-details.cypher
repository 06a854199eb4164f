// Per node of an analyst's result: its workspace and its degree among entities (as /graph counts it).
UNWIND $element_ids AS element_id
MATCH (n)
WHERE elementId(n) = element_id
RETURN element_id, n.workspace_id AS workspace_id, COUNT { (n)--(:Entity) } AS degree
