// One batch of a workspace's communities, with their HAS_MEMBER links.
MATCH (c:Community {tenant_id: $tenant_id, workspace_id: $workspace_id})
WITH c LIMIT $batch
DETACH DELETE c
RETURN count(*) AS deleted
