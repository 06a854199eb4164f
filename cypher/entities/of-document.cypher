MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE e.id IS NOT NULL AND $document_id IN e.document_ids
RETURN e {.*} AS entity
ORDER BY e.id ASC
