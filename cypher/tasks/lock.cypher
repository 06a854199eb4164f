// Takes the task's write lock for the rest of the transaction; the statements after it read committed state.
MATCH (t:Task {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $id})
SET t.seq = t.seq
RETURN t.id AS id
