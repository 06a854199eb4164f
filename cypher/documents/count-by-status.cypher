MATCH (d:Document {tenant_id: $tenant_id, workspace_id: $workspace_id})
RETURN d.status AS status, count(*) AS total
