// $seq orders tasks created at the same instant (first in, first claimed).
MERGE (t:Task {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $props.id})
SET t = $props, t.tenant_id = $tenant_id, t.workspace_id = $workspace_id, t.seq = $seq
