// Oldest first; messages of the same instant in the order they were added.
MATCH (m:Message {tenant_id: $tenant_id, workspace_id: $workspace_id, conversation_id: $conversation_id})
WITH m ORDER BY m.created_at ASC, m.seq ASC
WITH collect(m) AS matching
RETURN size(matching) AS total, [m IN matching[$offset..($offset + $limit)] | m {.*}] AS messages
