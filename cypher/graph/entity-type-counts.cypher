MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE e.id IS NOT NULL
RETURN e.entity_type AS type, count(*) AS total
