// Titles and file paths of the stored documents among $ids (never their content).
UNWIND $ids AS id
MATCH (d:Document {tenant_id: $tenant_id, workspace_id: $workspace_id, id: id})
RETURN d.id AS id, d.title AS title, d.file_path AS file_path
