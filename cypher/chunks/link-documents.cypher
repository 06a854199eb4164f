// (:Document)-[:HAS_CHUNK]->(:Chunk) for chunks whose document is stored.
UNWIND $ids AS id
MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})
MATCH (d:Document {tenant_id: $tenant_id, workspace_id: $workspace_id, id: c.document_id})
MERGE (d)-[h:HAS_CHUNK]->(c)
SET h.tenant_id = $tenant_id, h.workspace_id = $workspace_id
