// Relationships by id, looked up between the candidate end points of each id.
UNWIND $lookups AS lookup
MATCH (a:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: lookup.source})
      -[r]-(b:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: lookup.target})
WHERE r.id = lookup.id
WITH DISTINCT r
RETURN r {.*} AS relationship, startNode(r).id AS source, endNode(r).id AS target
