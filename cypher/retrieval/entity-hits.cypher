// Follows a search of EntityVector (vectors/search-*) returning `id, score` rows, or retrieval/found: the entities
// of the hits; with $around, every relationship touching a hit that scores at least $min_score, and the degree of
// those hits and of every end point (counted as in graph/degrees). Each record keeps its latest $sources chunk ids
// and $document_sources document ids. One row.
WITH collect({id: id, score: score}) AS found
CALL {
  WITH found
  UNWIND found AS hit
  MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: hit.id})
  RETURN collect({score: hit.score, entity: e {.*, source_chunk_ids: e.source_chunk_ids[-$sources..], document_ids: e.document_ids[-$document_sources..]}}) AS hits,
         collect(CASE WHEN $around AND hit.score >= $min_score THEN e END) AS seeds
}
CALL {
  WITH seeds
  UNWIND seeds AS e
  MATCH (e)-[r]-(:Entity)
  WITH DISTINCT r
  RETURN collect({relationship: r {.*, source_chunk_ids: r.source_chunk_ids[-$sources..], document_ids: r.document_ids[-$document_sources..]}, source: startNode(r).id, target: endNode(r).id}) AS relationships,
         collect(startNode(r)) + collect(endNode(r)) AS ends
}
CALL {
  WITH seeds, ends
  UNWIND seeds + ends AS n
  WITH DISTINCT n
  RETURN collect({id: n.id, degree: COUNT { (n)--() } - COUNT { (n)<-[:MENTIONS|HAS_MEMBER]-() }}) AS degrees
}
RETURN size(found) AS searched, hits, relationships, degrees
