// The entity-type labels (every label but :Entity) of stored entities.
UNWIND $ids AS id
MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})
RETURN e.id AS id, [label IN labels(e) WHERE label <> 'Entity'] AS labels
