// Every chunk of a workspace: its document and whether it names any record (for the integrity check).
MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE c.id IS NOT NULL
RETURN c.id AS id, c.document_id AS document_id,
       size(coalesce(c.entity_ids, [])) + size(coalesce(c.relationship_ids, [])) > 0 AS linked
