// Degree counts relationships between entities only: every relationship of the node minus incoming MENTIONS
// (from chunks) and HAS_MEMBER (from communities).
UNWIND $ids AS id
OPTIONAL MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})
RETURN id, CASE WHEN e IS NULL THEN 0 ELSE COUNT { (e)--() } - COUNT { (e)<-[:MENTIONS|HAS_MEMBER]-() } END AS degree
