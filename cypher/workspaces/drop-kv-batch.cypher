// Deletes one batch of a workspace's key-value nodes (keyed by namespace and key, not id).
MATCH (n:KV {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE n.namespace IS NOT NULL AND n.key IS NOT NULL
WITH n LIMIT $batch
DELETE n
RETURN count(*) AS deleted
