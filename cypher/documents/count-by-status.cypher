MATCH (d:Document {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE d.status IS NOT NULL
RETURN d.status AS status, count(*) AS total
