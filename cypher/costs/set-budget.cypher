// Creates or replaces the workspace's budget.
MERGE (b:CostBudget {tenant_id: $tenant_id, workspace_id: $workspace_id})
SET b = $fields, b.tenant_id = $tenant_id, b.workspace_id = $workspace_id, b.id = $workspace_id
