UNWIND $keys AS key
MATCH (v:KV {tenant_id: $tenant_id, workspace_id: $workspace_id, namespace: $namespace, key: key})
DELETE v
