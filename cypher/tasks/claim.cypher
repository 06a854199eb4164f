// Runs after tasks/lock in the same transaction: re-checks that the task is still claimable.
MATCH (t:Task {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $id})
WHERE (t.status = 'pending' AND (t.not_before IS NULL OR t.not_before <= $now))
   OR (t.status = 'running' AND t.lease_expires_at IS NOT NULL AND t.lease_expires_at <= $now)
SET t.status = 'running',
    t.lease_owner = $owner,
    t.lease_expires_at = $lease_until,
    t.started_at = coalesce(t.started_at, $now),
    t.updated_at = $now
RETURN t {.*} AS task
