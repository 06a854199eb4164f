// Hot lookups besides ids: duplicates by hash, listings by status and date, chunks and messages by parent.
CREATE INDEX document_content_hash IF NOT EXISTS FOR (n:Document) ON (n.tenant_id, n.workspace_id, n.content_hash);
CREATE INDEX document_status IF NOT EXISTS FOR (n:Document) ON (n.tenant_id, n.workspace_id, n.status);
CREATE INDEX document_created_at IF NOT EXISTS FOR (n:Document) ON (n.tenant_id, n.workspace_id, n.created_at);
CREATE INDEX chunk_document_id IF NOT EXISTS FOR (n:Chunk) ON (n.tenant_id, n.workspace_id, n.document_id);
CREATE INDEX entity_type IF NOT EXISTS FOR (n:Entity) ON (n.tenant_id, n.workspace_id, n.entity_type);
CREATE INDEX task_created_at IF NOT EXISTS FOR (n:Task) ON (n.tenant_id, n.workspace_id, n.created_at);
// Claims and recovery look at open tasks of every workspace.
CREATE INDEX task_status IF NOT EXISTS FOR (n:Task) ON (n.status);
CREATE INDEX conversation_updated_at IF NOT EXISTS FOR (n:Conversation) ON (n.tenant_id, n.workspace_id, n.updated_at);
CREATE INDEX message_conversation_id IF NOT EXISTS FOR (n:Message) ON (n.tenant_id, n.workspace_id, n.conversation_id);
