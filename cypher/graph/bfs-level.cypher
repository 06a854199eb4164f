// One breadth-first level: unseen neighbours of the frontier, most connected first, at most $take of them.
UNWIND $frontier AS id
MATCH (:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})--(n:Entity)
WHERE NOT n.id IN $seen
WITH DISTINCT n
WITH n, COUNT { (n)--() } - COUNT { (n)<-[:MENTIONS|HAS_MEMBER]-() } AS degree
RETURN n.id AS id
ORDER BY degree DESC, id ASC
LIMIT $take
