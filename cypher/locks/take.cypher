// Takes the write lock of each key's node, in the (sorted) order given, creating missing ones; returns the
// nodes locked, for locks/grant to check that none was deleted (released) before the lock was obtained.
UNWIND $keys AS key
MERGE (l:Lock {tenant_id: $tenant_id, workspace_id: $workspace_id, key: key})
SET l.key = key
RETURN key, elementId(l) AS id
