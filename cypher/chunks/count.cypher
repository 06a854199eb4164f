MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id})
RETURN count(c) AS total
