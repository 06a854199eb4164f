import { NotImplementedError } from '../domain/errors';
import { checkReadOnlyCypher } from './cypher-guard';
import type { CypherNode, CypherPath, CypherRelationship, Stores } from '../store/ports';

export interface CypherSettings {
  /** Off unless configured (SERVICE_CYPHER_ENABLED): Cypher cannot be confined to one workspace. */
  enabled: boolean;
  timeoutMs: number;
  maxRows: number;
}

/** A node of a Cypher result, shaped as a /graph node (docs/api.md §2.3) plus its labels and workspace. */
export interface CypherGraphNode {
  kind: 'node';
  id: string;
  label: string;
  node_type: string;
  description: string;
  degree: number;
  labels: string[];
  element_id: string;
  workspace_id: string | null;
  properties: Record<string, unknown>;
}

export interface CypherGraphEdge {
  kind: 'edge';
  id: string;
  source: string;
  target: string;
  edge_type: string;
  weight: number;
  element_id: string;
  workspace_id: string | null;
  properties: Record<string, unknown>;
}

export interface CypherAnswer {
  columns: string[];
  rows: Array<Record<string, unknown>>;
  row_count: number;
  /** More rows existed than max_rows. */
  is_truncated: boolean;
  max_rows: number;
  /** Every distinct node and edge in the rows, for drawing the result as /graph draws its view. */
  nodes: CypherGraphNode[];
  edges: CypherGraphEdge[];
}

const text = (value: unknown, fallback: string): string => (typeof value === 'string' && value ? value : fallback);

function presentNode(node: CypherNode): CypherGraphNode {
  const props = node.properties;
  const id = text(props.id, node.element_id);
  const entityLabel = node.labels.find((l) => l !== 'Entity');
  return {
    kind: 'node',
    id,
    label: text(props.name, text(props.title, id)),
    node_type: text(props.entity_type, entityLabel ?? node.labels[0] ?? 'UNKNOWN'),
    description: text(props.description, ''),
    degree: node.degree,
    labels: node.labels,
    element_id: node.element_id,
    workspace_id: node.workspace_id,
    properties: props,
  };
}

function presentEdge(relationship: CypherRelationship): CypherGraphEdge {
  const props = relationship.properties;
  return {
    kind: 'edge',
    id: text(props.id, relationship.element_id),
    source: relationship.source,
    target: relationship.target,
    edge_type: text(props.relation_type, relationship.type),
    weight: typeof props.weight === 'number' ? props.weight : 1,
    element_id: relationship.element_id,
    workspace_id: relationship.workspace_id ?? (typeof props.workspace_id === 'string' ? props.workspace_id : null),
    properties: { ...props, type: relationship.type },
  };
}

function isTagged(value: unknown, kind: string): boolean {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === kind && 'element_id' in value;
}

/**
 * Runs an analyst's Cypher (persistent mode only) and presents graph values as /graph does. The query is checked
 * before Neo4j sees it (cypher-guard.ts: reading clauses and read-only procedures only); the store's read
 * transaction refuses writes as a second line. This layer adds the switch and the limits.
 */
export async function runAnalystCypher(
  stores: Stores,
  settings: CypherSettings,
  input: { query: string; params: Record<string, unknown> },
): Promise<CypherAnswer> {
  if (!stores.cypher) {
    throw new NotImplementedError('raw Cypher needs persistent mode (Neo4j); the embedded store has no Cypher engine');
  }
  if (!settings.enabled) {
    throw new NotImplementedError('raw Cypher is turned off in this deployment; an operator turns it on with SERVICE_CYPHER_ENABLED=true');
  }
  checkReadOnlyCypher(input.query);
  const result = await stores.cypher.run(input.query, input.params, { timeoutMs: settings.timeoutMs, maxRows: settings.maxRows });
  const nodes = new Map<string, CypherGraphNode>();
  const edges = new Map<string, CypherGraphEdge>();
  const present = (value: unknown): unknown => {
    if (isTagged(value, 'node')) {
      const node = value as CypherNode;
      if (!nodes.has(node.element_id)) nodes.set(node.element_id, presentNode(node));
      return nodes.get(node.element_id);
    }
    if (isTagged(value, 'relationship')) {
      const relationship = value as CypherRelationship;
      if (!edges.has(relationship.element_id)) edges.set(relationship.element_id, presentEdge(relationship));
      return edges.get(relationship.element_id);
    }
    if (typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'path' && 'relationships' in value) {
      const path = value as CypherPath;
      return { kind: 'path', nodes: path.nodes.map(present), edges: path.relationships.map(present) };
    }
    if (Array.isArray(value)) return value.map(present);
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, present(v)]));
    }
    return value;
  };
  const rows = result.rows.map((row) => present(row) as Record<string, unknown>);
  return {
    columns: result.columns,
    rows,
    row_count: rows.length,
    is_truncated: result.truncated,
    max_rows: settings.maxRows,
    nodes: [...nodes.values()],
    edges: [...edges.values()],
  };
}
