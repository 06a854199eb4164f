// Template: $$LABEL$$ as in vectors/upsert. The record ids of a workspace's points of one kind.
MATCH (v:$$LABEL$$ {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE v.id IS NOT NULL
RETURN v.id AS id
