import type { EntityRecord, RelationshipRecord } from '../domain/types';

/** API shapes of graph records (docs/api.md §2.3), shared by /graph, the graph stream and the list endpoints. */

/**
 * How many of a record's document ids a graph node, edge or list item names. A record shared by every upload
 * would otherwise make each response (and each graph-stream event) grow with the number of documents;
 * `document_count` counts them all, and an entity's provenance and lineage list them all.
 */
export const DOCUMENT_IDS_SHOWN = 20;

function shownDocuments(ids: string[]): { document_ids: string[]; document_count: number } {
  return { document_ids: ids.length > DOCUMENT_IDS_SHOWN ? ids.slice(0, DOCUMENT_IDS_SHOWN) : ids, document_count: ids.length };
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
    source_count: number;
    document_ids: string[];
    document_count: number;
    created_at: string;
    updated_at: string;
  };
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
    source_count: number;
    document_ids: string[];
    document_count: number;
    created_at: string;
    updated_at: string;
  };
}

export interface EntityItem {
  id: string;
  name: string;
  entity_type: string;
  description: string;
  degree: number;
  source_count: number;
  document_ids: string[];
  document_count: number;
  created_at: string;
  updated_at: string;
}

export interface RelationshipItem {
  id: string;
  source: string;
  target: string;
  relation_type: string;
  relationship_type: string;
  keywords: string[];
  description: string;
  weight: number;
  source_count: number;
  document_ids: string[];
  document_count: number;
  created_at: string;
  updated_at: string;
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
      source_count: entity.source_chunk_ids.length,
      ...shownDocuments(entity.document_ids),
      created_at: entity.created_at,
      updated_at: entity.updated_at,
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
      source_count: relationship.source_chunk_ids.length,
      ...shownDocuments(relationship.document_ids),
      created_at: relationship.created_at,
      updated_at: relationship.updated_at,
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
    source_count: entity.source_chunk_ids.length,
    ...shownDocuments(entity.document_ids),
    created_at: entity.created_at,
    updated_at: entity.updated_at,
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
    source_count: relationship.source_chunk_ids.length,
    ...shownDocuments(relationship.document_ids),
    created_at: relationship.created_at,
    updated_at: relationship.updated_at,
  };
}
