UNWIND $ids AS id
MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})
RETURN e.id AS id
