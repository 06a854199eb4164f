// The conversation with its messages.
MATCH (c:Conversation {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $id})
OPTIONAL MATCH (c)-[:HAS_MESSAGE]->(m:Message)
WITH c, collect(m) AS messages
FOREACH (m IN messages | DETACH DELETE m)
DETACH DELETE c
RETURN count(*) AS deleted
