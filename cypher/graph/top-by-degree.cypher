MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE e.id IS NOT NULL
WITH e, COUNT { (e)--() } - COUNT { (e)<-[:MENTIONS|HAS_MEMBER]-() } AS degree
RETURN e.id AS id
ORDER BY degree DESC, id ASC
LIMIT $limit
