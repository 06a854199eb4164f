// Deletes one batch of a workspace's lock nodes (keyed by key, not id).
MATCH (n:Lock {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE n.key IS NOT NULL
WITH n LIMIT $batch
DELETE n
RETURN count(*) AS deleted
