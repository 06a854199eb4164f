// Approximate nearest neighbours from the shared, unquantised index: over-fetched and narrowed to the workspace.
// The index scores are the cosine scores (on Neo4j's 0..1 scale), so no stored vector is read again.
CALL db.index.vector.queryNodes($index, $fetch, $vector) YIELD node AS v, score
WHERE v.tenant_id = $tenant_id AND v.workspace_id = $workspace_id
  AND ($document_ids IS NULL OR any(d IN v.document_ids WHERE d IN $document_ids))
RETURN v.id AS id, score
ORDER BY score DESC, id ASC
LIMIT $top_k
