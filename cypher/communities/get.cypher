MATCH (c:Community {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $id})
RETURN properties(c) AS community
