MERGE (f:ConversationFolder {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $props.id})
SET f = $props, f.tenant_id = $tenant_id, f.workspace_id = $workspace_id
