// Every entity of a workspace, by id (the snapshot when the workspace is within the size asked for).
MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE e.id IS NOT NULL
RETURN e.id AS id, e.entity_type AS entity_type
ORDER BY id ASC
