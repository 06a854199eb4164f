import { createHash, randomUUID } from 'node:crypto';

/** Entity id: name trimmed, whitespace collapsed, UPPERCASE, spaces to underscores. */
export function normalizeEntityId(name: string): string {
  return name
    .trim()
    .replace(/^["'`]+|["'`]+$/g, '')
    .replace(/\s+/g, ' ')
    .toUpperCase()
    .replace(/ /g, '_');
}

export function chunkId(documentId: string, index: number): string {
  return `${documentId}-chunk-${index}`;
}

/** Relationships are undirected: the id orders the pair. */
export function relationshipId(a: string, b: string): [id: string, source: string, target: string] {
  const [source, target] = a <= b ? [a, b] : [b, a];
  return [`${source}|${target}`, source, target];
}

export function contentHash(content: string | Buffer): string {
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}

export function newId(): string {
  return randomUUID();
}

/** Relation type as an UPPER_SNAKE label usable as a Neo4j relationship type. */
export function normalizeRelationType(raw: string | undefined): string {
  const cleaned = (raw ?? '')
    .trim()
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /^[A-Z][A-Z0-9_]{0,63}$/.test(cleaned) ? cleaned : 'RELATED_TO';
}

export const DEFAULT_WORKSPACE_ID = 'default';
