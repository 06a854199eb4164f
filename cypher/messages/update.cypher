MATCH (m:Message {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $id})
SET m += $patch
