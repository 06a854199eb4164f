// The workspace's budget: (:CostBudget {tenant_id, workspace_id, id}) with id = workspace id.
MATCH (b:CostBudget {tenant_id: $tenant_id, workspace_id: $workspace_id})
RETURN b {.*} AS budget
