// Insert or replace entities. Each row carries its entity-type label (row.label, validated by the store to
// UPPER_SNAKE) set with Cypher 5.26 dynamic labels; an earlier type label of the node is removed.
// MENTIONS follow source_chunk_ids in the same statement (one pass over the rows is faster than three).
UNWIND $rows AS row
MERGE (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: row.props.id})
WITH e, row, [label IN labels(e) WHERE label <> 'Entity' AND label <> row.label AND label =~ '[A-Z][A-Z0-9_]*'] AS stale
REMOVE e:$(stale)
SET e = row.props, e.tenant_id = $tenant_id, e.workspace_id = $workspace_id
SET e:$(row.label)
WITH e
// Drops MENTIONS from chunks the entity no longer lists among its sources.
CALL (e) {
  OPTIONAL MATCH (e)<-[m:MENTIONS]-(c:Chunk)
  WHERE NOT c.id IN e.source_chunk_ids
  DELETE m
}
// (:Chunk)-[:MENTIONS]->(:Entity) for every stored chunk the entity lists among its sources.
CALL (e) {
  UNWIND e.source_chunk_ids AS chunk_id
  MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id, id: chunk_id})
  MERGE (c)-[m:MENTIONS]->(e)
  ON CREATE SET m.tenant_id = $tenant_id, m.workspace_id = $workspace_id
}
