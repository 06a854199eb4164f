// vectors/search-index for several query vectors at once ($queries, none of them zero): each asks the shared index
// for $fetch candidates, narrowed to the workspace and re-scored exactly on the stored vectors. One row per query:
// its position in $queries, its top $top_k hits best first, and how many of the workspace's vectors it saw.
UNWIND range(0, size($queries) - 1) AS at
CALL (at) {
  CALL db.index.vector.queryNodes($index, $fetch, $queries[at]) YIELD node AS v
  WHERE v.tenant_id = $tenant_id AND v.workspace_id = $workspace_id
  WITH v, CASE WHEN v.norm = 0 THEN 0.5 ELSE vector.similarity.cosine(v[$property], $queries[at]) END AS score
  ORDER BY score DESC, v.id ASC
  WITH collect({id: v.id, score: score}) AS ranked
  RETURN ranked[..$top_k] AS hits, size(ranked) AS searched
}
RETURN at, hits, searched
