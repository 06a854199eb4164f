MATCH (f:ConversationFolder {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $id})
SET f += $patch
