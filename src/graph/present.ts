import type { EntityRecord, RelationshipRecord } from '../domain/types';

/** API shapes of graph records (docs/api.md §2.3), shared by /graph, the graph stream and the list endpoints. */

/**
 * How many of a record's document ids a graph node, edge or list item names. A record shared by every upload
 * would otherwise make each response (and each graph-stream event) grow with the number of documents;
 * `document_count` counts them all, and an entity's provenance and lineage list them all.
 */
export const DOCUMENT_IDS_SHOWN = 20;

/** The fields every graph shape ends with: where the record comes from and when it was written. */
interface Provenance {
  source_count: number;
  document_ids: string[];
  document_count: number;
  created_at: string;
  updated_at: string;
}

function provenance(record: EntityRecord | RelationshipRecord): Provenance {
  const ids = record.document_ids;
  return {
    source_count: record.source_chunk_ids.length,
    document_ids: ids.length > DOCUMENT_IDS_SHOWN ? ids.slice(0, DOCUMENT_IDS_SHOWN) : ids,
    document_count: ids.length,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

export interface GraphNode {
  id: string;
  label: string;
  node_type: string;
  description: string;
  /** Over the whole workspace graph, not only the returned subgraph. */
  degree: number;
  properties: {
    name: string;
    entity_type: string;
  } & Provenance;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  edge_type: string;
  weight: number;
  properties: {
    keywords: string[];
    description: string;
  } & Provenance;
}

export interface EntityItem extends Provenance {
  id: string;
  name: string;
  entity_type: string;
  description: string;
  degree: number;
}

export interface RelationshipItem extends Provenance {
  id: string;
  source: string;
  target: string;
  relation_type: string;
  relationship_type: string;
  keywords: string[];
  description: string;
  weight: number;
}

export function toGraphNode(entity: EntityRecord, degree: number): GraphNode {
  return {
    id: entity.id,
    label: entity.name,
    node_type: entity.entity_type,
    description: entity.description,
    degree,
    properties: {
      name: entity.name,
      entity_type: entity.entity_type,
      ...provenance(entity),
    },
  };
}

export function toGraphEdge(relationship: RelationshipRecord): GraphEdge {
  return {
    id: relationship.id,
    source: relationship.source,
    target: relationship.target,
    edge_type: relationship.relation_type,
    weight: relationship.weight,
    properties: {
      keywords: relationship.keywords,
      description: relationship.description,
      ...provenance(relationship),
    },
  };
}

export function toEntityItem(entity: EntityRecord, degree: number): EntityItem {
  return {
    id: entity.id,
    name: entity.name,
    entity_type: entity.entity_type,
    description: entity.description,
    degree,
    ...provenance(entity),
  };
}

export function toRelationshipItem(relationship: RelationshipRecord): RelationshipItem {
  return {
    id: relationship.id,
    source: relationship.source,
    target: relationship.target,
    relation_type: relationship.relation_type,
    // EdgeQuake's name of relation_type.
    relationship_type: relationship.relation_type,
    keywords: relationship.keywords,
    description: relationship.description,
    weight: relationship.weight,
    ...provenance(relationship),
  };
}
