// The source chunks each stored entity among $ids lists (what its MENTIONS follow).
UNWIND $ids AS id
MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})
RETURN e.id AS id, e.source_chunk_ids AS sources
