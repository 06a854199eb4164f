MATCH (v:KV {tenant_id: $tenant_id, workspace_id: $workspace_id, namespace: $namespace})
WHERE v.key IS NOT NULL
RETURN count(v) AS total
