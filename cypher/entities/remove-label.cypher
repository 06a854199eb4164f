// Template: $$LABEL$$ is a validated entity-type label (see cypher/README.md).
UNWIND $ids AS id
MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})
REMOVE e:$$LABEL$$
