// Pending and running tasks: of one workspace, or of every workspace when $all is true.
MATCH (t:Task)
WHERE t.status IN ['pending', 'running']
  AND ($all OR (t.tenant_id = $tenant_id AND t.workspace_id = $workspace_id))
RETURN count(t) AS n
