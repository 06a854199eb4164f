// As costs/totals, for every workspace of a tenant (the tenant owning the workspace: owner_tenant_id).
MATCH (r:UsageRecord {owner_tenant_id: $owner_tenant_id})
WHERE r.created_at >= $from AND r.created_at < $to
RETURN r.workspace_id AS workspace_id, r.category AS category, sum(r.cost_usd) AS cost_usd,
       sum(r.input_tokens) AS input_tokens, sum(r.output_tokens) AS output_tokens, count(r) AS calls,
       collect(DISTINCT r.document_id) AS documents, collect(DISTINCT r.query_id) AS queries
