// Template: $$LABEL$$ as in vectors/upsert. Exact cosine over the workspace's vectors (small sets, filters).
MATCH (v:$$LABEL$$ {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE v.id IS NOT NULL AND v.dimension = $dimension
  AND ($document_ids IS NULL OR any(d IN v.document_ids WHERE d IN $document_ids))
// Cosine is undefined for zero vectors: they score as orthogonal (0.5 on Neo4j's 0..1 scale).
WITH v, CASE WHEN $query_norm = 0 OR v.norm = 0 THEN 0.5 ELSE vector.similarity.cosine(v[$property], $vector) END AS score
RETURN v.id AS id, score
ORDER BY score DESC, id ASC
LIMIT $top_k
