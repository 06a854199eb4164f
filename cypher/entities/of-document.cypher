// Seeks the entity_document_ids full-text index (migration 006) with the id as an escaped phrase, then keeps
// exactly the entities of this workspace that list the document: no scan of the workspace's entities.
CALL db.index.fulltext.queryNodes('entity_document_ids', '"' + replace(replace($document_id, '\\', '\\\\'), '"', '\\"') + '"')
YIELD node AS e
WHERE e.tenant_id = $tenant_id AND e.workspace_id = $workspace_id AND e.id IS NOT NULL AND $document_id IN e.document_ids
RETURN e {.*} AS entity
ORDER BY e.id ASC
