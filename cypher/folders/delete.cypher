// The folder; the conversations filed in it stay, in no folder.
MATCH (f:ConversationFolder {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $id})
OPTIONAL MATCH (c:Conversation {tenant_id: $tenant_id, workspace_id: $workspace_id, folder_id: f.id})
WITH f, collect(c) AS filed
FOREACH (c IN filed | REMOVE c.folder_id)
DELETE f
RETURN count(*) AS deleted
