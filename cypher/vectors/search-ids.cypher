// Template: $$LABEL$$ as in vectors/upsert. Exact cosine of the given points only (candidates known by id),
// found through the (tenant_id, workspace_id, id) uniqueness index.
MATCH (v:$$LABEL$$ {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE v.id IN $ids AND v.dimension = $dimension
  AND ($document_ids IS NULL OR any(d IN v.document_ids WHERE d IN $document_ids))
WITH v, CASE WHEN $query_norm = 0 OR v.norm = 0 THEN 0.5 ELSE vector.similarity.cosine(v[$property], $vector) END AS score
RETURN v.id AS id, score
ORDER BY score DESC, id ASC
LIMIT $top_k
