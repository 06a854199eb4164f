MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id, document_id: $document_id})
RETURN c {.*} AS chunk
ORDER BY c.index ASC
