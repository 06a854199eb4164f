// Template: $$LABEL$$ as in vectors/upsert.
MATCH (v:$$LABEL$$ {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE v.id IS NOT NULL AND ($dimension IS NULL OR v.dimension = $dimension)
RETURN count(v) AS total
