// Appends a message to a stored conversation (no row when the conversation is absent); a message stored
// earlier under the same id is replaced, wherever it was.
MATCH (c:Conversation {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $props.conversation_id})
OPTIONAL MATCH (old:Message {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $props.id})
DETACH DELETE old
WITH c
CREATE (c)-[h:HAS_MESSAGE]->(m:Message)
SET m = $props, m.tenant_id = $tenant_id, m.workspace_id = $workspace_id, m.seq = $seq,
    h.tenant_id = $tenant_id, h.workspace_id = $workspace_id
RETURN m.id AS id
