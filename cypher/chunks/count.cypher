MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE c.id IS NOT NULL
RETURN count(c) AS total
