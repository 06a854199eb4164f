// Template: $$LABEL$$ as in vectors/upsert. The stored vectors of some records of a workspace, read from the
// property named for each one's dimension.
MATCH (v:$$LABEL$$ {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE v.id IN $ids
RETURN v.id AS id, v['embedding_' + toString(v.dimension)] AS vector
