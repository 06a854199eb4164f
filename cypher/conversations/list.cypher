// Each filter, when not null, keeps: $folder_id those filed in that folder, $unfiled those in no folder (true) or in
// one (false), $pinned and $archived those with that flag (absent = false), $search (lower case) those whose title
// contains it whatever the case, $modes those of one of these modes. Ordered by $sort (updated_at, created_at or
// title), descending when $descending, ties by id.
MATCH (c:Conversation {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE c.updated_at IS NOT NULL
  AND ($folder_id IS NULL OR c.folder_id = $folder_id)
  AND ($unfiled IS NULL OR (c.folder_id IS NULL) = $unfiled)
  AND ($pinned IS NULL OR coalesce(c.is_pinned, false) = $pinned)
  AND ($archived IS NULL OR coalesce(c.is_archived, false) = $archived)
  AND ($search IS NULL OR toLower(c.title) CONTAINS $search)
  AND ($modes IS NULL OR c.mode IN $modes)
WITH c, CASE $sort WHEN 'title' THEN c.title WHEN 'created_at' THEN c.created_at ELSE c.updated_at END AS key
WITH c ORDER BY CASE WHEN $descending THEN key END DESC, CASE WHEN $descending THEN null ELSE key END ASC, c.id ASC
WITH collect(c) AS matching
RETURN size(matching) AS total, [c IN matching[$offset..($offset + $limit)] | c {.*}] AS conversations
