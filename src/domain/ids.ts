import { createHash, randomUUID } from 'node:crypto';
import { nextTurn } from './turns';
import type { Scope } from './types';

/**
 * Entity id: name in Unicode NFC (the composed and decomposed spellings of "Café" are one name), trimmed,
 * whitespace collapsed, UPPERCASE, spaces to underscores.
 */
export function normalizeEntityId(name: string): string {
  return name
    .normalize('NFC')
    .trim()
    .replace(/^["'`]+|["'`]+$/g, '')
    .replace(/\s+/g, ' ')
    .toUpperCase()
    .replace(/ /g, '_');
}

export function chunkId(documentId: string, index: number): string {
  return `${documentId}-chunk-${index}`;
}

/** The id of the chunk that follows `chunkId` in its document (`{document_id}-chunk-{N + 1}`); null for another id. */
export function followingChunkId(chunkId: string): string | null {
  const at = chunkId.lastIndexOf('-chunk-');
  const index = at < 0 ? NaN : Number(chunkId.slice(at + '-chunk-'.length));
  return Number.isSafeInteger(index) && index >= 0 ? `${chunkId.slice(0, at)}-chunk-${index + 1}` : null;
}

/**
 * Chunk ids are `{document_id}-chunk-{N}`. The document id is interned: records keep the document ids of their
 * sources, and a slice of each chunk id would be one more string per record and document, each holding its whole
 * chunk id alive; interned, every record names a document with the same string.
 */
export function documentOfChunk(chunkId: string): string {
  const at = chunkId.lastIndexOf('-chunk-');
  return at < 0 ? chunkId : intern(chunkId.slice(0, at));
}

/** Whether the chunk id `{document_id}-chunk-{N}` is of that document; nothing allocated. */
export function isChunkOf(chunkId: string, documentId: string): boolean {
  const at = chunkId.lastIndexOf('-chunk-');
  return at < 0 ? chunkId === documentId : at === documentId.length && chunkId.startsWith(documentId);
}

/** The documents of these chunks, each once, in order of first mention. */
export function documentsOfChunks(chunkIds: Iterable<string>): string[] {
  const documents = new Set<string>();
  let last: string | null = null;
  for (const chunkId of chunkIds) {
    // A record's chunks come grouped by document: the document just seen is checked first.
    if (last !== null && isChunkOf(chunkId, last)) continue;
    last = documentOfChunk(chunkId);
    documents.add(last);
  }
  return [...documents];
}

/** Interned document ids; cleared when full, so it holds the documents in current use. */
const INTERNED_MAX = 65_536;
const interned = new Map<string, string>();

function intern(id: string): string {
  const known = interned.get(id);
  if (known !== undefined) return known;
  if (interned.size >= INTERNED_MAX) interned.clear();
  // A flat copy (a parsed string is a new sequential string), not a slice that keeps the chunk id it was cut from.
  const flat = JSON.parse(JSON.stringify(id)) as string;
  interned.set(flat, flat);
  return flat;
}

/** Relationships are undirected: the id orders the pair. */
export function relationshipId(a: string, b: string): [id: string, source: string, target: string] {
  const [source, target] = a <= b ? [a, b] : [b, a];
  return [`${source}|${target}`, source, target];
}

export function contentHash(content: string | Buffer): string {
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}

/** Bytes (or UTF-16 units) hashed per turn of the event loop: a few milliseconds of SHA-256. */
const HASH_SLICE = 2 * 1024 * 1024;

/** `contentHash` of a large upload, giving way to I/O between slices; the same hash. */
export async function contentHashInSlices(content: string | Buffer): Promise<string> {
  const hash = createHash('sha256');
  for (let at = 0; at < content.length;) {
    let end = Math.min(content.length, at + HASH_SLICE);
    // A string is cut between UTF-16 units, never inside a surrogate pair, so its UTF-8 bytes are unchanged.
    if (typeof content === 'string' && end < content.length && isHighSurrogate(content.charCodeAt(end - 1))) end--;
    hash.update(content.slice(at, end));
    at = end;
    if (at < content.length) await nextTurn();
  }
  return `sha256:${hash.digest('hex')}`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
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

/** Key of a workspace in process-wide maps: tenants never share a workspace even when workspace ids coincide. */
export function scopeKey(scope: Scope): string {
  return `${scope.tenantId ?? ''}\u0000${scope.workspaceId}`;
}
