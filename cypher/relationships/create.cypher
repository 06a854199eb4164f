// Template: every row has the relationship type $$TYPE$$, validated before it is spliced in (see cypher/README.md).
UNWIND $rows AS row
MATCH (a:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: row.source})
MATCH (b:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: row.target})
CREATE (a)-[r:$$TYPE$$]->(b)
SET r = row.props, r.tenant_id = $tenant_id, r.workspace_id = $workspace_id
