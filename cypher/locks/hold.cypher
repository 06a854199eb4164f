// Takes the write lock of each existing key node, in the (sorted) order given, before renew or release
// read who owns it: a lease another instance took over meanwhile is seen, never overwritten.
UNWIND $keys AS key
MATCH (l:Lock {tenant_id: $tenant_id, workspace_id: $workspace_id, key: key})
SET l.key = key
