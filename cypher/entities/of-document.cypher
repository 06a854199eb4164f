MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE $document_id IN e.document_ids
RETURN e {.*} AS entity
ORDER BY e.id ASC
