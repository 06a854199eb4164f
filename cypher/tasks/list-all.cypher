// Workers and recovery see the open tasks of every workspace, oldest first, each with its workspace.
MATCH (t:Task)
WHERE t.status IN $statuses
RETURN t {.*} AS task, t.tenant_id AS tenant_id, t.workspace_id AS workspace_id
ORDER BY t.created_at ASC, t.seq ASC
