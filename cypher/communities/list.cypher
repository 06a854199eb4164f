// By level, then rank (highest first), then id; the level is optional.
MATCH (c:Community {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE $level IS NULL OR c.level = $level
WITH c ORDER BY c.level ASC, c.rank DESC, c.id ASC
WITH collect(c) AS matching
RETURN size(matching) AS total, [c IN matching[$offset..($offset + $limit)] | properties(c)] AS communities
