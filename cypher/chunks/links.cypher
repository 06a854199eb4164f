// chunks/get-many without the text: what each chunk names. In the order asked for; unknown ids are skipped.
UNWIND $ids AS id
MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})
RETURN c.id AS id, c.document_id AS document_id, c.entity_ids AS entity_ids, c.relationship_ids AS relationship_ids
