// Every relationship between entities of a workspace, by id, as four lists in one row (one record instead of
// one per relationship keeps the transfer short).
MATCH (a:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id})-[r]->(b:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id})
WITH r.id AS id, a.id AS source, b.id AS target, coalesce(r.weight, 1.0) AS weight
ORDER BY id ASC
RETURN collect(id) AS ids, collect(source) AS sources, collect(target) AS targets, collect(weight) AS weights
