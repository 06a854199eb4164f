// Follows a search of ChunkVector (vectors/search-*) returning `id, score` rows, or retrieval/found: the chunks of
// the hits with their documents' titles and file paths. One row.
WITH collect({id: id, score: score}) AS found
CALL {
  WITH found
  UNWIND found AS hit
  MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id, id: hit.id})
  OPTIONAL MATCH (d:Document {tenant_id: $tenant_id, workspace_id: $workspace_id, id: c.document_id})
  RETURN collect({score: hit.score, chunk: c {.*}, document: d.id, title: d.title, file_path: d.file_path}) AS hits
}
RETURN size(found) AS searched, hits
