MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id})
RETURN count(e) AS total
