// One node per priced provider call: (:UsageRecord {tenant_id, workspace_id, id, owner_tenant_id, operation, category, ...}).
UNWIND $rows AS row
CREATE (r:UsageRecord)
SET r = row, r.tenant_id = $tenant_id, r.workspace_id = $workspace_id
