// Approximate nearest neighbours from the shared (quantised) index, over-fetched, narrowed to the workspace,
// then re-scored exactly on the stored vectors.
CALL db.index.vector.queryNodes($index, $fetch, $vector) YIELD node AS v
WHERE v.tenant_id = $tenant_id AND v.workspace_id = $workspace_id
  AND ($document_ids IS NULL OR any(d IN v.document_ids WHERE d IN $document_ids))
WITH v, CASE WHEN v.norm = 0 THEN 0.5 ELSE vector.similarity.cosine(v[$property], $vector) END AS score
RETURN v.id AS id, score
ORDER BY score DESC, id ASC
LIMIT $top_k
