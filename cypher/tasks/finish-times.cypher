// When the newest $limit tasks of one workspace with $status were created and finished, in the order of tasks/list
// (newest first, ties by id): two timestamps per task instead of whole records.
MATCH (t:Task {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE t.created_at IS NOT NULL AND t.status = $status
RETURN t.created_at AS created_at, t.finished_at AS finished_at
ORDER BY t.created_at DESC, t.id ASC
LIMIT $limit
