// Runs after locks/hold: extends $owner's lease on the keys it still holds.
UNWIND $keys AS key
MATCH (l:Lock {tenant_id: $tenant_id, workspace_id: $workspace_id, key: key})
WHERE l.owner = $owner
SET l.expires_at = timestamp() + $ttl_ms
RETURN count(l) AS renewed
