// (:Chunk)-[:MENTIONS]->(:Entity) for every stored chunk the entity lists among its sources.
UNWIND $ids AS id
MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})
UNWIND e.source_chunk_ids AS chunk_id
MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id, id: chunk_id})
MERGE (c)-[m:MENTIONS]->(e)
SET m.tenant_id = $tenant_id, m.workspace_id = $workspace_id
