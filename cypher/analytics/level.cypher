// One breadth-first level: the unseen entity neighbours of the frontier, each with the node it was reached from.
UNWIND $frontier AS id
MATCH (p:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})--(n:Entity)
WHERE NOT n.id IN $seen
RETURN DISTINCT p.id AS parent, n.id AS id, n.entity_type AS entity_type
