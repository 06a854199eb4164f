// Conversation folders, and conversations by the folder they are filed in.
CREATE CONSTRAINT conversation_folder_key IF NOT EXISTS FOR (n:ConversationFolder) REQUIRE (n.tenant_id, n.workspace_id, n.id) IS UNIQUE;
CREATE INDEX conversation_folder_id IF NOT EXISTS FOR (n:Conversation) ON (n.tenant_id, n.workspace_id, n.folder_id);
