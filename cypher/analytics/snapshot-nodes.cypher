// The most connected entities of a workspace (degree between entities only), at most $limit, then by id.
MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE e.id IS NOT NULL
WITH e, COUNT { (e)--(:Entity) } AS degree
ORDER BY degree DESC, e.id ASC
LIMIT $limit
RETURN e.id AS id, e.entity_type AS entity_type
ORDER BY id ASC
