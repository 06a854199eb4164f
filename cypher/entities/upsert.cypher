// Template: every row has the entity-type label $$LABEL$$, validated before it is spliced in (see cypher/README.md).
UNWIND $rows AS row
MERGE (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: row.id})
SET e = row, e.tenant_id = $tenant_id, e.workspace_id = $workspace_id
SET e:$$LABEL$$
