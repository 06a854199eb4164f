UNWIND $keys AS key
MATCH (v:KV {tenant_id: $tenant_id, workspace_id: $workspace_id, namespace: $namespace, key: key})
RETURN v.key AS key, v.value AS value
