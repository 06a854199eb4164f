// Relationships between the given entities, by id.
UNWIND $ids AS id
MATCH (a:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})-[r]->(b:Entity)
WHERE b.id IN $ids
RETURN r.id AS id, a.id AS source, b.id AS target, coalesce(r.weight, 1.0) AS weight
ORDER BY id ASC
