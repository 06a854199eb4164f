// relationships/find with only the latest $sources chunk ids and $document_sources document ids of each record
// (`[-n..][..n]`: the last n, none when n is 0), so that a relationship many documents state stays a small row.
UNWIND $lookups AS lookup
MATCH (a:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: lookup.source})
      -[r]-(b:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: lookup.target})
WHERE r.id = lookup.id
WITH DISTINCT r
RETURN r {.*, source_chunk_ids: r.source_chunk_ids[-$sources..][..$sources], document_ids: r.document_ids[-$document_sources..][..$document_sources]} AS relationship,
       startNode(r).id AS source, endNode(r).id AS target
