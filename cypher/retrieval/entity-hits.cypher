// Follows a search of EntityVector (vectors/search-*) returning `id, score` rows, or retrieval/found: the entities
// of the hits; with $around, the relationships touching a hit that scores at least $min_score (a seed), and the
// degree of the seeds and of the end points of those relationships (counted as in graph/degrees). With $keep, only
// the relationships ranking within the first $keep by local expansion's order (seeds joined, then the degrees of
// both end points, then weight), ties at the cut included: the service breaks them by id. Each record keeps its
// latest $sources chunk ids and $document_sources document ids (`[-n..][..n]`: the last n, none when n is 0, where
// `[-0..]` alone would keep them all). One row.
WITH collect({id: id, score: score}) AS found
CALL {
  WITH found
  UNWIND found AS hit
  MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: hit.id})
  RETURN collect({score: hit.score, entity: e {.*, source_chunk_ids: e.source_chunk_ids[-$sources..][..$sources], document_ids: e.document_ids[-$document_sources..][..$document_sources]}}) AS hits,
         collect(CASE WHEN $around AND hit.score >= $min_score THEN e END) AS seeds
}
CALL {
  WITH seeds
  UNWIND seeds AS e
  MATCH (e)-[r]-(:Entity)
  WITH seeds, collect(DISTINCT r) AS around
  UNWIND around AS r
  WITH r, startNode(r) AS a, endNode(r) AS b, seeds
  WITH r, a, b,
       CASE WHEN a IN seeds THEN 1 ELSE 0 END + CASE WHEN b IN seeds THEN 1 ELSE 0 END AS joined,
       COUNT { (a)--() } - COUNT { (a)<-[:MENTIONS|HAS_MEMBER]-() } AS da,
       COUNT { (b)--() } - COUNT { (b)<-[:MENTIONS|HAS_MEMBER]-() } AS db
  ORDER BY joined DESC, da + db DESC, coalesce(r.weight, 0) DESC
  WITH collect({r: r, a: a.id, b: b.id, da: da, db: db, joined: joined, rank: da + db, weight: coalesce(r.weight, 0)}) AS ranked
  WITH ranked, CASE WHEN $keep IS NULL OR size(ranked) <= $keep THEN null ELSE ranked[$keep - 1] END AS last
  UNWIND ranked AS x
  WITH x, x.r AS r, last
  WHERE last IS NULL OR x.joined > last.joined OR (x.joined = last.joined AND
        (x.rank > last.rank OR (x.rank = last.rank AND x.weight >= last.weight)))
  RETURN collect({relationship: r {.*, source_chunk_ids: r.source_chunk_ids[-$sources..][..$sources], document_ids: r.document_ids[-$document_sources..][..$document_sources]}, source: x.a, target: x.b}) AS relationships,
         collect({id: x.a, degree: x.da}) + collect({id: x.b, degree: x.db}) AS ends
}
CALL {
  WITH seeds
  UNWIND seeds AS n
  RETURN collect({id: n.id, degree: COUNT { (n)--() } - COUNT { (n)<-[:MENTIONS|HAS_MEMBER]-() }}) AS seed_degrees
}
RETURN size(found) AS searched, hits, relationships, seed_degrees + ends AS degrees
