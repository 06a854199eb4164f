// Template: $$LABEL$$ as in vectors/upsert. A stored vector of the workspace whose dimension differs.
MATCH (v:$$LABEL$$ {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE v.id IS NOT NULL AND v.dimension <> $dimension
RETURN v.dimension AS dimension
LIMIT 1
