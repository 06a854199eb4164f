// Relationships whose both end points are among the entities, by id.
UNWIND $ids AS id
MATCH (a:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})-[r]->(b:Entity)
WHERE b.id IN $ids
WITH DISTINCT r, a, b
RETURN r {.*} AS relationship, a.id AS source, b.id AS target
ORDER BY r.id ASC
