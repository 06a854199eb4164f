MATCH (t:Task {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $id})
RETURN t {.*} AS task
