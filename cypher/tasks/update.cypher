MATCH (t:Task {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $id})
SET t += $patch
RETURN t {.*} AS task
