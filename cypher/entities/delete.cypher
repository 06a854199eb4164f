// With every relationship touching the entities: nothing is left dangling.
UNWIND $ids AS id
MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})
DETACH DELETE e
