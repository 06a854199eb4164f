// Per relationship of an analyst's result: the ids (or element ids) of its two ends, and its workspace.
UNWIND $element_ids AS element_id
MATCH (a)-[r]->(b)
WHERE elementId(r) = element_id
RETURN element_id, r.workspace_id AS workspace_id, coalesce(a.id, elementId(a)) AS source, coalesce(b.id, elementId(b)) AS target
