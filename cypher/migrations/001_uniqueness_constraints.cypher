// Every record is unique by (tenant_id, workspace_id, id); the constraints also index those lookups.
CREATE CONSTRAINT migration_version IF NOT EXISTS FOR (m:Migration) REQUIRE m.version IS UNIQUE;
CREATE CONSTRAINT document_key IF NOT EXISTS FOR (n:Document) REQUIRE (n.tenant_id, n.workspace_id, n.id) IS UNIQUE;
CREATE CONSTRAINT chunk_key IF NOT EXISTS FOR (n:Chunk) REQUIRE (n.tenant_id, n.workspace_id, n.id) IS UNIQUE;
CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (n:Entity) REQUIRE (n.tenant_id, n.workspace_id, n.id) IS UNIQUE;
CREATE CONSTRAINT task_key IF NOT EXISTS FOR (n:Task) REQUIRE (n.tenant_id, n.workspace_id, n.id) IS UNIQUE;
CREATE CONSTRAINT conversation_key IF NOT EXISTS FOR (n:Conversation) REQUIRE (n.tenant_id, n.workspace_id, n.id) IS UNIQUE;
CREATE CONSTRAINT message_key IF NOT EXISTS FOR (n:Message) REQUIRE (n.tenant_id, n.workspace_id, n.id) IS UNIQUE;
CREATE CONSTRAINT kv_key IF NOT EXISTS FOR (n:KV) REQUIRE (n.tenant_id, n.workspace_id, n.namespace, n.key) IS UNIQUE;
CREATE CONSTRAINT chunk_vector_key IF NOT EXISTS FOR (n:ChunkVector) REQUIRE (n.tenant_id, n.workspace_id, n.id) IS UNIQUE;
CREATE CONSTRAINT entity_vector_key IF NOT EXISTS FOR (n:EntityVector) REQUIRE (n.tenant_id, n.workspace_id, n.id) IS UNIQUE;
CREATE CONSTRAINT relationship_vector_key IF NOT EXISTS FOR (n:RelationshipVector) REQUIRE (n.tenant_id, n.workspace_id, n.id) IS UNIQUE;
