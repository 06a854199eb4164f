// Tenants, workspaces, users and credentials live outside any workspace: unique by id, plus their own keys.
CREATE CONSTRAINT tenant_id IF NOT EXISTS FOR (n:Tenant) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT tenant_slug IF NOT EXISTS FOR (n:Tenant) REQUIRE n.slug IS UNIQUE;
CREATE CONSTRAINT workspace_id IF NOT EXISTS FOR (n:Workspace) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT workspace_slug IF NOT EXISTS FOR (n:Workspace) REQUIRE (n.tenant_id, n.slug) IS UNIQUE;
CREATE CONSTRAINT user_id IF NOT EXISTS FOR (n:User) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT user_username IF NOT EXISTS FOR (n:User) REQUIRE n.username IS UNIQUE;
CREATE CONSTRAINT api_key_id IF NOT EXISTS FOR (n:ApiKey) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT api_key_hash IF NOT EXISTS FOR (n:ApiKey) REQUIRE n.key_hash IS UNIQUE;
CREATE CONSTRAINT refresh_token_id IF NOT EXISTS FOR (n:RefreshToken) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT refresh_token_hash IF NOT EXISTS FOR (n:RefreshToken) REQUIRE n.token_hash IS UNIQUE;
CREATE CONSTRAINT metrics_snapshot_id IF NOT EXISTS FOR (n:MetricsSnapshot) REQUIRE n.id IS UNIQUE;
CREATE INDEX metrics_snapshot_workspace IF NOT EXISTS FOR (n:MetricsSnapshot) ON (n.workspace_id);
CREATE INDEX api_key_tenant IF NOT EXISTS FOR (n:ApiKey) ON (n.tenant_id);
CREATE INDEX user_tenant IF NOT EXISTS FOR (n:User) ON (n.tenant_id);
CREATE INDEX workspace_tenant IF NOT EXISTS FOR (n:Workspace) ON (n.tenant_id);
CREATE INDEX api_key_user IF NOT EXISTS FOR (n:ApiKey) ON (n.user_id);
CREATE INDEX refresh_token_user IF NOT EXISTS FOR (n:RefreshToken) ON (n.user_id);
