MATCH (c:Conversation {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $id})
SET c += $patch
