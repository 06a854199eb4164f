// From the entities listing the document (entity_document_ids full-text index, as entities/of-document) along
// their relationships, keeping those that list it too. Complete because a relationship's sources are sources of
// its end points (an extracted relation makes both ends entities of its chunk; merges and deletions keep that),
// so a relationship naming a document has an end point naming it.
CALL db.index.fulltext.queryNodes('entity_document_ids', '"' + replace(replace($document_id, '\\', '\\\\'), '"', '\\"') + '"')
YIELD node AS e
WHERE e.tenant_id = $tenant_id AND e.workspace_id = $workspace_id AND e.id IS NOT NULL AND $document_id IN e.document_ids
MATCH (e)-[r]-(:Entity)
WHERE $document_id IN r.document_ids
WITH DISTINCT r
RETURN r {.*} AS relationship, startNode(r).id AS source, endNode(r).id AS target
ORDER BY r.id ASC
