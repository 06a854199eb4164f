// (:Chunk)-[:MENTIONS]->(:Entity) where the chunk names the entity and the entity lists the chunk as a source.
UNWIND $ids AS id
MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})
UNWIND c.entity_ids AS entity_id
MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: entity_id})
WHERE c.id IN e.source_chunk_ids
MERGE (c)-[m:MENTIONS]->(e)
SET m.tenant_id = $tenant_id, m.workspace_id = $workspace_id
