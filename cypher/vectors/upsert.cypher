// Template: $$LABEL$$ is ChunkVector, EntityVector or RelationshipVector. The vector is stored as a float32
// array in the property named for its dimension (e.g. embedding_256), which that dimension's vector index covers.
UNWIND $rows AS row
MERGE (v:$$LABEL$$ {tenant_id: $tenant_id, workspace_id: $workspace_id, id: row.id})
SET v = {tenant_id: $tenant_id, workspace_id: $workspace_id, id: row.id, document_ids: row.document_ids,
         dimension: $dimension, norm: row.norm}
WITH v, row
CALL db.create.setNodeVectorProperty(v, $property, row.vector)
