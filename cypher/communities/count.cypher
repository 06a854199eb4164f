MATCH (c:Community {tenant_id: $tenant_id, workspace_id: $workspace_id})
RETURN count(c) AS total
