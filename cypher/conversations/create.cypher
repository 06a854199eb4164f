MERGE (c:Conversation {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $props.id})
SET c = $props, c.tenant_id = $tenant_id, c.workspace_id = $workspace_id
