// In the order asked for; unknown ids are skipped.
UNWIND $ids AS id
MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})
RETURN c {.*} AS chunk
