MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id})
RETURN e.entity_type AS type, count(*) AS total
