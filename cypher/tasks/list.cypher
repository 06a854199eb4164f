// Newest first, ties by id; the status is optional.
MATCH (t:Task {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE t.created_at IS NOT NULL AND ($status IS NULL OR t.status = $status)
WITH t ORDER BY t.created_at DESC, t.id ASC
WITH collect(t) AS matching
RETURN size(matching) AS total, [t IN matching[$offset..($offset + $limit)] | t {.*}] AS tasks
