// The oldest holder of the content is the original that later uploads duplicate.
MATCH (d:Document {tenant_id: $tenant_id, workspace_id: $workspace_id, content_hash: $content_hash})
RETURN d {.*} AS document
ORDER BY d.created_at ASC, d.id DESC
LIMIT 1
