// Tasks of one workspace by status (through the task_created_at index, as tasks/list).
MATCH (t:Task {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE t.created_at IS NOT NULL
RETURN t.status AS status, count(*) AS total
