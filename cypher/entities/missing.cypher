// The ids among $ids that name no stored entity.
UNWIND $ids AS id
OPTIONAL MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})
WITH id, e
WHERE e IS NULL
RETURN id
