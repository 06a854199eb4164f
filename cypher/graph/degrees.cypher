// Degree counts relationships between entities only: every relationship of the node minus incoming MENTIONS.
UNWIND $ids AS id
OPTIONAL MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})
RETURN id, CASE WHEN e IS NULL THEN 0 ELSE COUNT { (e)--() } - COUNT { (e)<-[:MENTIONS]-() } END AS degree
