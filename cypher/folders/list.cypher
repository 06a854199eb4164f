// By name then id, each with the number of conversations filed in it.
MATCH (f:ConversationFolder {tenant_id: $tenant_id, workspace_id: $workspace_id})
OPTIONAL MATCH (c:Conversation {tenant_id: $tenant_id, workspace_id: $workspace_id, folder_id: f.id})
WITH f, count(c) AS conversation_count
ORDER BY f.name ASC, f.id ASC
RETURN f {.*} AS folder, conversation_count
