// Values are JSON text.
MERGE (v:KV {tenant_id: $tenant_id, workspace_id: $workspace_id, namespace: $namespace, key: $key})
SET v.value = $value
