import neo4j, { type ManagedTransaction, type Node, type Path, type Relationship } from 'neo4j-driver';
import { ForbiddenError, InvalidInputError } from '../../domain/errors';
import type { AnalystCypher, CypherNode, CypherRelationship, CypherResult } from '../ports';
import type { Neo4jClient } from './client';
import { isConnectivityError, isTransientError } from './availability';
import { cypherText } from './cypher';
import { toPlain } from './values';

/** Vectors stored on nodes are long float lists no analyst reads in a result table. */
const HIDDEN_PROPERTY = /^embedding_\d+$/;

interface Collected {
  nodes: Map<string, CypherNode>;
  relationships: Map<string, CypherRelationship>;
}

/**
 * Analysts' Cypher in a READ session: Neo4j itself refuses any write. The transaction has a server-side timeout;
 * records are read one by one and reading stops after `maxRows` (one more tells that the result was cut).
 */
export class Neo4jAnalystCypher implements AnalystCypher {
  constructor(private readonly db: Neo4jClient) {}

  run(query: string, params: Record<string, unknown>, limits: { timeoutMs: number; maxRows: number }): Promise<CypherResult> {
    return this.db.budget.run(() => this.runInSession(query, params, limits));
  }

  private async runInSession(
    query: string,
    params: Record<string, unknown>,
    limits: { timeoutMs: number; maxRows: number },
  ): Promise<CypherResult> {
    const session = this.db.driver.session({ database: this.db.database, defaultAccessMode: neo4j.session.READ });
    try {
      return await session.executeRead((tx) => this.read(tx, query, params, limits.maxRows), { timeout: limits.timeoutMs });
    } catch (err) {
      throw translate(err, limits.timeoutMs);
    } finally {
      await session.close();
    }
  }

  private async read(tx: ManagedTransaction, query: string, params: Record<string, unknown>, maxRows: number): Promise<CypherResult> {
    const collected: Collected = { nodes: new Map(), relationships: new Map() };
    const result = tx.run(query, toParams(params) as Record<string, unknown>);
    const rows: Array<Record<string, unknown>> = [];
    let truncated = false;
    for await (const record of result) {
      if (rows.length >= maxRows) {
        truncated = true;
        break;
      }
      const row: Record<string, unknown> = {};
      for (const key of record.keys) row[String(key)] = convert(record.get(key), collected);
      rows.push(row);
    }
    const columns = rows.length ? Object.keys(rows[0]) : ((await result.keys()) as string[]).map(String);
    await this.complete(tx, collected);
    return { columns, rows, truncated };
  }

  /** Degrees of nodes and the ids of relationship ends, read in the same transaction. */
  private async complete(tx: ManagedTransaction, collected: Collected): Promise<void> {
    if (collected.nodes.size) {
      const details = await tx.run(cypherText('analysts/node-details'), { element_ids: [...collected.nodes.keys()] });
      for (const record of details.records) {
        const node = collected.nodes.get(String(record.get('element_id')));
        if (!node) continue;
        node.degree = Number(toPlain(record.get('degree')) ?? 0);
        node.workspace_id = (toPlain(record.get('workspace_id')) as string | null) ?? null;
      }
    }
    if (collected.relationships.size) {
      const ends = await tx.run(cypherText('analysts/relationship-ends'), { element_ids: [...collected.relationships.keys()] });
      for (const record of ends.records) {
        const relationship = collected.relationships.get(String(record.get('element_id')));
        if (!relationship) continue;
        relationship.source = String(record.get('source'));
        relationship.target = String(record.get('target'));
      }
    }
  }
}

function properties(value: Node | Relationship): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value.properties)) if (!HIDDEN_PROPERTY.test(key)) out[key] = toPlain(inner);
  return out;
}

function convertNode(node: Node, collected: Collected): CypherNode {
  let known = collected.nodes.get(node.elementId);
  if (!known) {
    const props = properties(node);
    known = { kind: 'node', element_id: node.elementId, labels: [...node.labels], properties: props, workspace_id: null, degree: 0 };
    collected.nodes.set(node.elementId, known);
  }
  return known;
}

function convertRelationship(relationship: Relationship, collected: Collected): CypherRelationship {
  let known = collected.relationships.get(relationship.elementId);
  if (!known) {
    known = {
      kind: 'relationship',
      element_id: relationship.elementId,
      type: relationship.type,
      source: relationship.startNodeElementId,
      target: relationship.endNodeElementId,
      properties: properties(relationship),
      workspace_id: null,
    };
    collected.relationships.set(relationship.elementId, known);
  }
  return known;
}

/** Driver values to plain ones; graph values to tagged objects shared by every row that holds them. */
function convert(value: unknown, collected: Collected): unknown {
  if (value === null || value === undefined || typeof value !== 'object') return toPlain(value);
  if (neo4j.isNode(value)) return convertNode(value as Node, collected);
  if (neo4j.isRelationship(value)) return convertRelationship(value as Relationship, collected);
  if (neo4j.isPath(value)) {
    const path = value as Path;
    const nodes = [convertNode(path.start, collected), ...path.segments.map((s) => convertNode(s.end, collected))];
    return { kind: 'path', nodes, relationships: path.segments.map((s) => convertRelationship(s.relationship, collected)) };
  }
  if (Array.isArray(value)) return value.map((inner) => convert(inner, collected));
  if (neo4j.isInt(value) || ArrayBuffer.isView(value) || neo4j.isDateTime(value) || neo4j.isDate(value) || neo4j.isDuration(value)) {
    return toPlain(value);
  }
  if (neo4j.isLocalDateTime(value) || neo4j.isTime(value) || neo4j.isLocalTime(value) || neo4j.isPoint(value)) return toPlain(value);
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[key] = convert(inner, collected);
  return out;
}

/** JSON numbers without a fraction become Cypher integers (`LIMIT $n` refuses a float). */
function toParams(value: unknown): unknown {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? neo4j.int(value) : value;
  if (Array.isArray(value)) return value.map(toParams);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toParams(v)]));
  return value;
}

/**
 * Every Neo4j error of an analyst's query in the words of the domain: a refusal of a write or of a privilege is a
 * 403, the timeout, invalid Cypher, a missing parameter and anything else the database reports about the query
 * (a database error, an exhausted memory pool) a 422 naming the query. Only what says the database cannot be
 * reached or is busy passes through, as the 503 it is everywhere else (connection failures, a full connection
 * pool, transient errors).
 */
export function translate(err: unknown, timeoutMs: number): unknown {
  const code = String((err as { code?: unknown })?.code ?? '');
  const message = String((err as { message?: unknown })?.message ?? err);
  if (code === 'Neo.ClientError.Statement.AccessMode' || (code.startsWith('Neo.ClientError.Security.') && /write/i.test(message))) {
    return new ForbiddenError(`writes are refused: /graph/cypher runs in a read-only transaction (${message})`, { neo4j_code: code });
  }
  if (code.startsWith('Neo.ClientError.Security.')) {
    return new ForbiddenError(`Neo4j refused the query: ${message}`, { neo4j_code: code });
  }
  if (/TimedOut|Terminated/.test(code)) {
    return InvalidInputError.field('query', `the query ran longer than the ${timeoutMs} ms limit and was stopped`, { neo4j_code: code });
  }
  if (code === 'Neo.ClientError.Statement.ParameterMissing') return InvalidInputError.field('params', message, { neo4j_code: code });
  if (code === 'Neo.TransientError.General.MemoryPoolOutOfMemoryError') {
    return InvalidInputError.field('query', `the query needed more memory than Neo4j allows a transaction (${message})`, {
      neo4j_code: code,
    });
  }
  const neo4jError = (err as { name?: unknown })?.name === 'Neo4jError';
  if (!neo4jError || isConnectivityError(err) || isTransientError(err) || message.startsWith('Connection acquisition timed out'))
    return err;
  return InvalidInputError.field('query', `Neo4j could not run the query: ${message}`, { neo4j_code: code || null });
}
