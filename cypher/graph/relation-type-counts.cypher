MATCH (:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id})-[r]->(:Entity)
RETURN r.relation_type AS type, count(*) AS total
