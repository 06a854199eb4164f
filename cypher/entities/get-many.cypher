// In the order asked for; unknown ids are skipped.
UNWIND $ids AS id
MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})
RETURN e {.*} AS entity
