// By id; type and search (lower-cased substring of id or name) are optional.
MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE e.id IS NOT NULL
  AND ($type IS NULL OR e.entity_type = $type)
  AND ($search IS NULL OR toLower(e.id) CONTAINS $search OR toLower(e.name) CONTAINS $search)
WITH e ORDER BY e.id ASC
WITH collect(e) AS matching
RETURN size(matching) AS total, [e IN matching[$offset..($offset + $limit)] | e {.*}] AS entities
