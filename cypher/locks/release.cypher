// Runs after locks/hold: deletes the key nodes $owner holds; others' keys are left alone.
UNWIND $keys AS key
MATCH (l:Lock {tenant_id: $tenant_id, workspace_id: $workspace_id, key: key})
WHERE l.owner = $owner
DELETE l
