// Chunks in the order asked for (unknown ids skipped), with their documents' titles and file paths.
UNWIND $ids AS id
MATCH (c:Chunk {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})
OPTIONAL MATCH (d:Document {tenant_id: $tenant_id, workspace_id: $workspace_id, id: c.document_id})
RETURN c {.*} AS chunk, d.id AS document, d.title AS title, d.file_path AS file_path
