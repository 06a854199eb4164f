// Patches of several tasks of one workspace in one statement, applied in the order of $rows; `at` numbers the rows
// and a task not found answers a null task.
UNWIND range(0, size($rows) - 1) AS at
WITH at, $rows[at] AS row
OPTIONAL MATCH (t:Task {tenant_id: $tenant_id, workspace_id: $workspace_id, id: row.id})
SET t += row.patch
RETURN at, t {.*} AS task
