// Runs after locks/take: grants every key to $owner when every node taken still exists and no other
// owner's lease on one has run out; otherwise nothing (the caller rolls the transaction back).
// The database clock decides expiry, so instances with skewed clocks agree.
UNWIND $taken AS row
MATCH (l:Lock {tenant_id: $tenant_id, workspace_id: $workspace_id, key: row.key})
WHERE elementId(l) = row.id
WITH collect(l) AS locks, timestamp() AS now
WITH locks, now, size(locks) = $count AND none(l IN locks WHERE l.owner IS NOT NULL AND l.owner <> $owner AND l.expires_at > now) AS free
FOREACH (l IN CASE WHEN free THEN locks ELSE [] END | SET l.owner = $owner, l.expires_at = now + $ttl_ms)
RETURN free AS acquired
