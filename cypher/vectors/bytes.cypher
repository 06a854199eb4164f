// Float32 storage: four bytes per dimension.
CALL {
  MATCH (v:ChunkVector {tenant_id: $tenant_id, workspace_id: $workspace_id}) WHERE v.id IS NOT NULL RETURN v
  UNION ALL
  MATCH (v:EntityVector {tenant_id: $tenant_id, workspace_id: $workspace_id}) WHERE v.id IS NOT NULL RETURN v
  UNION ALL
  MATCH (v:RelationshipVector {tenant_id: $tenant_id, workspace_id: $workspace_id}) WHERE v.id IS NOT NULL RETURN v
}
RETURN coalesce(sum(v.dimension), 0) * 4 AS bytes
