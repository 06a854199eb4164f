// Template: $$LABEL$$ is one of the store's own labels. Deletes one batch of a workspace's nodes.
MATCH (n:$$LABEL$$ {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE n.id IS NOT NULL
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
