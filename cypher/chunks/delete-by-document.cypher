MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id, document_id: $document_id})
WHERE NOT c.id IN $keep
DETACH DELETE c
RETURN count(*) AS deleted
