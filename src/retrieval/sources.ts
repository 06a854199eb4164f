import type { Scope } from '../domain/types';
import type { Stores } from '../store/ports';
import type { ChunkOrigin, ContextParts } from './prompts/context';
import { formatContext } from './prompts/context';
import { CharBoundedMap, memoText, ownCopy } from '../domain/text-memo';
import type { ChunkSource, EntitySource, QuerySource, ScoredChunk, ScoredCommunity, ScoredEntity, ScoredRelationship } from './types';

const SNIPPET_CHARS = 300;
/** A snippet reads this much of a text's head, and whether there is more. */
const HEAD_CHARS = SNIPPET_CHARS * 2;

/**
 * Chunk snippets by chunk id, each with the head of the text it was made from: a snippet is still the text's own
 * while the text begins with that head and is as long or as short as the head says. A new chunk costs a copy of
 * its head, not of its whole text, and no text is kept alive by the memo. Bounded by the characters held; the
 * oldest go first.
 */
export class ChunkSnippets {
  private readonly made: CharBoundedMap<{ head: string; more: boolean; snippet: string }>;

  constructor(maxChars = 8_000_000) {
    this.made = new CharBoundedMap(maxChars);
  }

  of(id: string, text: string): string {
    const more = text.length > HEAD_CHARS;
    const hit = this.made.entry(id)?.value;
    if (hit && hit.more === more && (more ? text.startsWith(hit.head) : text === hit.head)) return hit.snippet;
    const snippet = snippetOf(text);
    const head = ownCopy(more ? text.slice(0, HEAD_CHARS) : text);
    this.made.set(id, { head, more, snippet }, head.length + snippet.length);
    return snippet;
  }
}

/**
 * The same chunks and entities come back query after query: their snippets are made once. An entity's description
 * is rewritten by the documents that mention it, and each rewrite would leave its old text behind as a key: that
 * memo is kept small (at 16 million characters, under steady uploads it held 1.8 MB of stale descriptions a minute).
 */
const chunkSnippets = new ChunkSnippets();
const descriptionSnippet = memoText(snippetOf, 1_000_000);

/** Chunks are numbered first (they are what answers cite most), entities after them. */
export async function presentContext(
  stores: Stores,
  scope: Scope,
  entities: readonly ScoredEntity[],
  relationships: readonly ScoredRelationship[],
  chunks: readonly ScoredChunk[],
  reranked: boolean,
  communities: readonly ScoredCommunity[] = [],
): Promise<{ sources: QuerySource[]; contextText: string }> {
  const origins = await originsOf(stores, scope, chunks);
  const chunkSources: ChunkSource[] = chunks.map((c, i) => {
    const origin = origins.get(c.record.document_id) ?? { title: '', file_path: '' };
    const source: ChunkSource = {
      source_type: 'chunk',
      id: c.record.id,
      score: round(c.score),
      snippet: chunkSnippets.of(c.record.id, c.record.content),
      reference_id: i + 1,
      document_id: c.record.document_id,
      document_title: origin.title,
      file_path: origin.file_path,
      start_line: c.record.start_line,
      end_line: c.record.end_line,
      chunk_index: c.record.index,
    };
    if (reranked && c.rerankScore !== undefined) source.rerank_score = round(c.rerankScore);
    return source;
  });
  const entitySources: EntitySource[] = entities.map((e, i) => ({
    source_type: 'entity',
    id: e.record.id,
    name: e.record.name,
    score: round(e.score),
    snippet: descriptionSnippet(e.record.description),
    reference_id: chunks.length + i + 1,
    entity_type: e.record.entity_type,
    degree: e.degree,
  }));
  const parts: ContextParts = {
    communities: communities.map((c) => c.record),
    entities: entities.map((e, i) => ({ reference_id: entitySources[i].reference_id, record: e.record })),
    relationships: relationships.map((r) => r.record),
    chunks: chunks.map((c, i) => ({
      reference_id: i + 1,
      record: c.record,
      origin: origins.get(c.record.document_id) ?? { title: '', file_path: '' },
    })),
  };
  return { sources: [...chunkSources, ...entitySources], contextText: formatContext(parts) };
}

/** Origins read with the chunks are used as they are; the documents of the others are read here. */
async function originsOf(stores: Stores, scope: Scope, chunks: readonly ScoredChunk[]): Promise<Map<string, ChunkOrigin>> {
  const origins = new Map<string, ChunkOrigin>();
  for (const c of chunks) if (c.origin) origins.set(c.record.document_id, c.origin);
  const ids = [...new Set(chunks.map((c) => c.record.document_id))].filter((id) => !origins.has(id));
  if (ids.length === 0) return origins;
  const titles = await stores.documents.titles(scope, ids);
  for (const id of ids) origins.set(id, titles.get(id) ?? { title: '', file_path: '' });
  return origins;
}

/**
 * What `/\s+/g` would replace with one space, less the runs that already are one: most of a text's whitespace is
 * single spaces, which then cost no replacement (three times faster on chunk texts).
 */
const WHITESPACE_TO_FOLD = /\s\s+|[^\S ]/g;

export function snippetOf(text: string): string {
  // Only the head matters: collapsing the whitespace of a whole long chunk would be wasted work.
  const flat = text.slice(0, HEAD_CHARS).replace(WHITESPACE_TO_FOLD, ' ').trim();
  if (flat.length <= SNIPPET_CHARS && text.length <= HEAD_CHARS) return flat;
  const cut = flat.slice(0, SNIPPET_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${space > SNIPPET_CHARS * 0.6 ? cut.slice(0, space) : cut}…`;
}

function round(score: number): number {
  return Math.round(score * 1e6) / 1e6;
}
