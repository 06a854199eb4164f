// A workspace's usage records in [from, to), oldest first.
MATCH (r:UsageRecord {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE r.created_at >= $from AND r.created_at < $to
RETURN r {.*} AS record
ORDER BY r.created_at, r.id
