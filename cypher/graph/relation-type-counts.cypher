MATCH (a:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id})-[r]->(:Entity)
WHERE a.id IS NOT NULL
RETURN r.relation_type AS type, count(*) AS total
