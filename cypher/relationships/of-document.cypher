MATCH (a:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id})-[r]->(b:Entity)
WHERE a.id IS NOT NULL AND $document_id IN r.document_ids
RETURN r {.*} AS relationship, a.id AS source, b.id AS target
ORDER BY r.id ASC
