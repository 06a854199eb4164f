// Values are JSON text; one row per key.
UNWIND $rows AS row
MERGE (v:KV {tenant_id: $tenant_id, workspace_id: $workspace_id, namespace: $namespace, key: row.key})
SET v.value = row.value
