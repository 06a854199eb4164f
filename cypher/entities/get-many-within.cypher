// entities/get-many as retrieval reads them: each with its latest $sources chunk ids and $document_sources document
// ids (`[-n..][..n]`: the last n, none when n is 0), so that a hub citing much of the corpus stays a small row.
UNWIND $ids AS id
MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})
RETURN e {.*, source_chunk_ids: e.source_chunk_ids[-$sources..][..$sources], document_ids: e.document_ids[-$document_sources..][..$document_sources]} AS entity
