// The folder with the number of conversations filed in it.
MATCH (f:ConversationFolder {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $id})
OPTIONAL MATCH (c:Conversation {tenant_id: $tenant_id, workspace_id: $workspace_id, folder_id: f.id})
RETURN f {.*} AS folder, count(c) AS conversation_count
