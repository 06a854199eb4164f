// The document node only: its chunks, graph and vectors belong to their own stores.
MATCH (d:Document {tenant_id: $tenant_id, workspace_id: $workspace_id, id: $id})
DETACH DELETE d
RETURN count(*) AS deleted
