// Most recently updated first, ties by id; $folder_id (when not null) keeps those filed in that folder.
MATCH (c:Conversation {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE c.updated_at IS NOT NULL AND ($folder_id IS NULL OR c.folder_id = $folder_id)
WITH c ORDER BY c.updated_at DESC, c.id ASC
WITH collect(c) AS matching
RETURN size(matching) AS total, [c IN matching[$offset..($offset + $limit)] | c {.*}] AS conversations
