// Every relationship touching any of the entities, by id.
UNWIND $ids AS id
MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})-[r]-(:Entity)
WITH DISTINCT r
RETURN r {.*} AS relationship, startNode(r).id AS source, endNode(r).id AS target
ORDER BY r.id ASC
