// By id; the relation type is optional.
MATCH (a:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id})-[r]->(b:Entity)
WHERE a.id IS NOT NULL AND ($type IS NULL OR r.relation_type = $type)
WITH r, a, b ORDER BY r.id ASC
WITH collect([r, a.id, b.id]) AS matching
RETURN size(matching) AS total,
       [m IN matching[$offset..($offset + $limit)] | {relationship: properties(m[0]), source: m[1], target: m[2]}]
         AS relationships
