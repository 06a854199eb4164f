// Drops MENTIONS from chunks the entity no longer lists among its sources.
UNWIND $ids AS id
MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})<-[m:MENTIONS]-(c:Chunk)
WHERE NOT c.id IN e.source_chunk_ids
DELETE m
