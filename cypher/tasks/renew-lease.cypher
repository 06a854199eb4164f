// Runs after tasks/lock in the same transaction, so a lease taken over meanwhile is seen.
MATCH (t:Task {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $id})
WHERE t.status = 'running' AND t.lease_owner = $owner
SET t.lease_expires_at = $lease_until
RETURN t.id AS id
