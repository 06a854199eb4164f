MATCH (c:Community {tenant_id: $tenant_id, workspace_id: $workspace_id})
RETURN properties(c) AS community
ORDER BY c.level ASC, c.rank DESC, c.id ASC
