// Most recently updated first, ties by id. Each filter, when not null, keeps: $folder_id those filed in that folder,
// $unfiled those in no folder (true) or in one (false), $pinned and $archived those with that flag (absent = false).
MATCH (c:Conversation {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE c.updated_at IS NOT NULL
  AND ($folder_id IS NULL OR c.folder_id = $folder_id)
  AND ($unfiled IS NULL OR (c.folder_id IS NULL) = $unfiled)
  AND ($pinned IS NULL OR coalesce(c.is_pinned, false) = $pinned)
  AND ($archived IS NULL OR coalesce(c.is_archived, false) = $archived)
WITH c ORDER BY c.updated_at DESC, c.id ASC
WITH collect(c) AS matching
RETURN size(matching) AS total, [c IN matching[$offset..($offset + $limit)] | c {.*}] AS conversations
