// Insert or replace chunks; a chunk that moved to another document loses its old HAS_CHUNK link.
UNWIND $rows AS row
MERGE (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id, id: row.id})
SET c = row, c.tenant_id = $tenant_id, c.workspace_id = $workspace_id
WITH c
OPTIONAL MATCH (c)<-[old:HAS_CHUNK]-(other:Document {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE other.id <> c.document_id
DELETE old
