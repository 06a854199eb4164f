// What existing chunks name, and nothing else of them (their MENTIONS follow the entities' sources, written with
// the entities); unknown ids are skipped.
UNWIND $rows AS row
MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id, id: row.id})
SET c.entity_ids = row.entity_ids, c.relationship_ids = row.relationship_ids
