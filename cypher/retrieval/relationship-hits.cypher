// Follows a search of RelationshipVector (vectors/search-*) returning `id, score` rows, or retrieval/found: the
// relationships of the hits, found between the candidate end points their id names (`source|target`, as in
// relationships/find); with $ends, the end points of the hits that score at least $min_score and their degrees
// (counted as in graph/degrees). With $keep, only the first $keep end points in hit order (best first, then by id;
// each hit's source, then its target): those global expansion keeps. Each record keeps its latest $sources chunk
// ids and $document_sources document ids (`[-n..][..n]`: the last n, none when n is 0, where `[-0..]` alone would
// keep them all). One row.
WITH collect({id: id, score: score}) AS found
CALL {
  WITH found
  UNWIND found AS hit
  UNWIND [at IN range(0, size(hit.id) - 1) WHERE substring(hit.id, at, 1) = '|'] AS at
  MATCH (a:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: substring(hit.id, 0, at)})
        -[r]-(b:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: substring(hit.id, at + 1)})
  WHERE r.id = hit.id
  WITH DISTINCT hit, r
  ORDER BY hit.score DESC, r.id
  RETURN collect({score: hit.score, relationship: r {.*, source_chunk_ids: r.source_chunk_ids[-$sources..][..$sources], document_ids: r.document_ids[-$document_sources..][..$document_sources]}, source: startNode(r).id, target: endNode(r).id}) AS hits,
         collect(CASE WHEN $ends AND hit.score >= $min_score THEN [startNode(r), endNode(r)] END) AS pairs
}
CALL {
  WITH pairs
  UNWIND range(0, 2 * size(pairs) - 1) AS at
  WITH pairs[at / 2][at % 2] AS n, at
  WITH n, min(at) AS first
  ORDER BY first
  WITH collect(n) AS ends
  UNWIND ends[..coalesce($keep, size(ends))] AS n
  RETURN collect(n {.*, source_chunk_ids: n.source_chunk_ids[-$sources..][..$sources], document_ids: n.document_ids[-$document_sources..][..$document_sources]}) AS entities,
         collect({id: n.id, degree: COUNT { (n)--() } - COUNT { (n)<-[:MENTIONS|HAS_MEMBER]-() }}) AS degrees
}
RETURN size(found) AS searched, hits, entities, degrees
