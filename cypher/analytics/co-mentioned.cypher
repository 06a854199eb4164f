// Entities mentioned in the same chunks as the entity, by the number of chunks shared.
MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $id})<-[:MENTIONS]-(c:Chunk)-[:MENTIONS]->(o:Entity)
WHERE o <> e
RETURN o.id AS id, count(DISTINCT c) AS shared_chunks
ORDER BY shared_chunks DESC, id ASC
LIMIT $limit
