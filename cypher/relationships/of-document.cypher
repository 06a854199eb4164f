// Two index-led paths, kept where the relationship lists the document:
// - from the entities listing it (entity_document_ids full-text index, as entities/of-document) along their
//   relationships: complete on its own, since an extracted relation makes both ends entities of its chunk and
//   merges and deletions keep a relationship's sources among its end points';
// - from the document's chunks (chunk_document_id index) through the relationship ids they contributed, each id
//   looked up between its candidate end points (ids may hold `|`): this also finds a relationship whose end
//   points were rewritten without the document by a merge that stopped before the relationship was.
CALL () {
  CALL db.index.fulltext.queryNodes('entity_document_ids', '"' + replace(replace($document_id, '\\', '\\\\'), '"', '\\"') + '"')
  YIELD node AS e
  WHERE e.tenant_id = $tenant_id AND e.workspace_id = $workspace_id AND e.id IS NOT NULL AND $document_id IN e.document_ids
  MATCH (e)-[r]-(:Entity)
  WHERE $document_id IN r.document_ids
  RETURN r
  UNION
  MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id, document_id: $document_id})
  UNWIND c.relationship_ids AS id
  WITH DISTINCT id
  UNWIND [i IN range(0, size(id) - 1) WHERE substring(id, i, 1) = '|'] AS at
  MATCH (a:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: substring(id, 0, at)})
        -[r]-(:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: substring(id, at + 1)})
  WHERE r.id = id AND $document_id IN r.document_ids
  RETURN r
}
WITH DISTINCT r
RETURN r {.*} AS relationship, startNode(r).id AS source, endNode(r).id AS target
ORDER BY r.id ASC
