// Most recently updated first, ties by id.
MATCH (c:Conversation {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE c.updated_at IS NOT NULL
WITH c ORDER BY c.updated_at DESC, c.id ASC
WITH collect(c) AS matching
RETURN size(matching) AS total, [c IN matching[$offset..($offset + $limit)] | c {.*}] AS conversations
