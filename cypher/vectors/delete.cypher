// Template: $$LABEL$$ as in vectors/upsert.
UNWIND $ids AS id
MATCH (v:$$LABEL$$ {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})
DELETE v
