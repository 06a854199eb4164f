MATCH (d:Document {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $id})
SET d += $patch
RETURN d {.*} AS document
