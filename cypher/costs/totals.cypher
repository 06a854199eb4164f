// Sums of a workspace's usage records in [from, to), per category (documents and queries as distinct ids).
MATCH (r:UsageRecord {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE r.created_at >= $from AND r.created_at < $to
RETURN r.category AS category, sum(r.cost_usd) AS cost_usd, sum(r.input_tokens) AS input_tokens,
       sum(r.output_tokens) AS output_tokens, count(r) AS calls,
       collect(DISTINCT r.document_id) AS documents, collect(DISTINCT r.query_id) AS queries
