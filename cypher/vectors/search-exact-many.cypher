// Template: $$LABEL$$ as in vectors/upsert. vectors/search-exact for several query vectors at once ($queries,
// their norms in $norms): the workspace's vectors are read once for all of them, not once per query. One row per
// query that found anything: its position in $queries and its top $top_k hits, best first.
MATCH (v:$$LABEL$$ {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE v.id IS NOT NULL AND v.dimension = $dimension
WITH v.id AS id, v.norm AS norm, v[$property] AS stored
UNWIND range(0, size($queries) - 1) AS at
// Cosine is undefined for zero vectors: they score as orthogonal (0.5 on Neo4j's 0..1 scale).
WITH at, id, CASE WHEN $norms[at] = 0 OR norm = 0 THEN 0.5 ELSE vector.similarity.cosine(stored, $queries[at]) END AS score
ORDER BY at ASC, score DESC, id ASC
WITH at, collect({id: id, score: score}) AS ranked
RETURN at, ranked[..$top_k] AS hits
