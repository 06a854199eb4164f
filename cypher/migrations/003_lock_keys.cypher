// Entity lock leases (cypher/locks/): one :Lock node per key and workspace; the constraint makes MERGE safe between instances.
CREATE CONSTRAINT lock_key IF NOT EXISTS FOR (n:Lock) REQUIRE (n.tenant_id, n.workspace_id, n.key) IS UNIQUE;
