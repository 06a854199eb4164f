// Insert or replace entities. Each row carries its entity-type label (row.label, validated by the store to
// UPPER_SNAKE) set with Cypher 5.26 dynamic labels; an earlier type label of the node is removed.
UNWIND $rows AS row
MERGE (e:Entity {tenant_id: $tenant_id, workspace_id: $workspace_id, id: row.props.id})
WITH e, row, [label IN labels(e) WHERE label <> 'Entity' AND label <> row.label AND label =~ '[A-Z][A-Z0-9_]*'] AS stale
REMOVE e:$(stale)
SET e = row.props, e.tenant_id = $tenant_id, e.workspace_id = $workspace_id
SET e:$(row.label)
