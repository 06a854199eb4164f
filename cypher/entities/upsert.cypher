// Insert or replace entities. Each row carries its entity-type label (row.label, validated by the store to
// UPPER_SNAKE) set with Cypher 5.26 dynamic labels; an earlier type label of the node is removed.
// MENTIONS follow source_chunk_ids in the same statement, by difference: row.unlinked are the chunks the entity
// listed before and no longer does, row.linked those it lists anew (every source for a new entity), so a
// record with thousands of sources costs what changed, not what it has.
UNWIND $rows AS row
MERGE (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: row.props.id})
WITH e, row, [label IN labels(e) WHERE label <> 'Entity' AND label <> row.label AND label =~ '[A-Z][A-Z0-9_]*'] AS stale
REMOVE e:$(stale)
SET e = row.props, e.tenant_id = $tenant_id, e.workspace_id = $workspace_id
SET e:$(row.label)
WITH e, row
CALL (e, row) {
  UNWIND row.unlinked AS chunk_id
  MATCH (:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id, id: chunk_id})-[m:MENTIONS]->(e)
  DELETE m
}
// (:Chunk)-[:MENTIONS]->(:Entity) for every stored chunk among the new sources (chunks stored later are
// linked by chunks/link-entities).
CALL (e, row) {
  UNWIND row.linked AS chunk_id
  MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id, id: chunk_id})
  MERGE (c)-[m:MENTIONS]->(e)
  ON CREATE SET m.tenant_id = $tenant_id, m.workspace_id = $workspace_id
}
