// Insert or replace a document, and link the chunks already stored for it.
MERGE (d:Document {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $props.id})
SET d = $props, d.tenant_id = $tenant_id, d.workspace_id = $workspace_id
WITH d
OPTIONAL MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id, document_id: d.id})
WITH d, collect(c) AS chunks
FOREACH (c IN chunks |
  MERGE (d)-[h:HAS_CHUNK]->(c)
  SET h.tenant_id = $tenant_id, h.workspace_id = $workspace_id)
RETURN d.id AS id
