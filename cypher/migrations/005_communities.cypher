// Communities of a workspace graph: (:Community)-[:HAS_MEMBER]->(:Entity), unique by (tenant_id, workspace_id, id).
CREATE CONSTRAINT community_key IF NOT EXISTS FOR (n:Community) REQUIRE (n.tenant_id, n.workspace_id, n.id) IS UNIQUE;
CREATE INDEX community_level IF NOT EXISTS FOR (n:Community) ON (n.tenant_id, n.workspace_id, n.level);
