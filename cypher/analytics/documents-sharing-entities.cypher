// Pairs of documents by the number of entities both list among their sources.
MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE size(e.document_ids) > 1
UNWIND e.document_ids AS a
UNWIND e.document_ids AS b
WITH e, a, b WHERE a < b
RETURN a AS document_a, b AS document_b, count(DISTINCT e) AS shared_entities
ORDER BY shared_entities DESC, document_a ASC, document_b ASC
LIMIT $limit
