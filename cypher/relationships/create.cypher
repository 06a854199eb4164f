// Each row carries its relationship type (row.type, validated by the store to UPPER_SNAKE), given to
// CREATE as a Cypher 5.26 dynamic type.
UNWIND $rows AS row
MATCH (a:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: row.source})
MATCH (b:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: row.target})
CREATE (a)-[r:$(row.type)]->(b)
SET r = row.props, r.tenant_id = $tenant_id, r.workspace_id = $workspace_id
