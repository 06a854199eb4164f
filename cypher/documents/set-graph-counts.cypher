// The entity and relationship counts of the documents given that exist; nothing is returned.
UNWIND $rows AS row
MATCH (d:Document {tenant_id: $tenant_id, workspace_id: $workspace_id, id: row.id})
SET d.entity_count = row.entities, d.relationship_count = row.relationships
