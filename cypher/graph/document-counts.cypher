// Per document: how many entities and relationships list it among their sources, found along the same index-led
// paths as entities/of-document and relationships/of-document, and counted there instead of read.
UNWIND $document_ids AS document_id
CALL (document_id) {
  CALL db.index.fulltext.queryNodes('entity_document_ids', '"' + replace(replace(document_id, '\\', '\\\\'), '"', '\\"') + '"')
  YIELD node AS e
  WHERE e.tenant_id = $tenant_id AND e.workspace_id = $workspace_id AND e.id IS NOT NULL AND document_id IN e.document_ids
  RETURN count(e) AS entities
}
CALL (document_id) {
  CALL (document_id) {
    CALL db.index.fulltext.queryNodes('entity_document_ids', '"' + replace(replace(document_id, '\\', '\\\\'), '"', '\\"') + '"')
    YIELD node AS e
    WHERE e.tenant_id = $tenant_id AND e.workspace_id = $workspace_id AND e.id IS NOT NULL AND document_id IN e.document_ids
    MATCH (e)-[r]-(:Entity)
    WHERE document_id IN r.document_ids
    RETURN r
    UNION
    MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id, document_id: document_id})
    UNWIND c.relationship_ids AS id
    WITH DISTINCT id
    UNWIND [i IN range(0, size(id) - 1) WHERE substring(id, i, 1) = '|'] AS at
    MATCH (a:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: substring(id, 0, at)})
          -[r]-(:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: substring(id, at + 1)})
    WHERE r.id = id AND document_id IN r.document_ids
    RETURN r
  }
  RETURN count(DISTINCT r) AS relationships
}
RETURN document_id, entities, relationships
