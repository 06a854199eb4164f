MATCH (d:Document {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $id})
RETURN d {.*} AS document
