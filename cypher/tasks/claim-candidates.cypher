// Pending tasks oldest first (those put back after an outage once their backoff ended), then running tasks whose
// lease ended (their worker died), of every workspace.
CALL {
  MATCH (t:Task {status: 'pending'})
  WHERE t.not_before IS NULL OR t.not_before <= $now
  RETURN t, 0 AS rank
  ORDER BY t.created_at ASC, t.seq ASC
  LIMIT $take
  UNION
  MATCH (t:Task {status: 'running'})
  WHERE t.lease_expires_at IS NOT NULL AND t.lease_expires_at <= $now
  RETURN t, 1 AS rank
  ORDER BY t.created_at ASC, t.seq ASC
  LIMIT $take
}
RETURN t.tenant_id AS tenant_id, t.workspace_id AS workspace_id, t.id AS id
ORDER BY rank ASC, t.created_at ASC, t.seq ASC
LIMIT $take
