// Communities with their members: HAS_MEMBER to every member entity that is stored.
UNWIND $rows AS row
CREATE (c:Community)
SET c = row, c.tenant_id = $tenant_id, c.workspace_id = $workspace_id
WITH c
CALL (c) {
  UNWIND c.member_ids AS member_id
  MATCH (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: member_id})
  CREATE (c)-[m:HAS_MEMBER]->(e)
  SET m.tenant_id = $tenant_id, m.workspace_id = $workspace_id
}
