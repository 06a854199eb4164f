// Degree counts relationships between entities only.
MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE e.id IS NOT NULL
WITH e, COUNT { (e)--(:Entity) } AS degree
RETURN e.id AS id, degree AS score
ORDER BY score DESC, id ASC
LIMIT $limit
