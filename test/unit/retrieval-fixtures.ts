import { chunkId, relationshipId } from '../../src/domain/ids';
import type { ChunkRecord, DocumentRecord, EntityRecord, RelationshipRecord, Scope } from '../../src/domain/types';
import type { ChatMessage, Completion, CompletionOptions, LlmProvider, TokenUsage } from '../../src/llm/ports';
import { MockEmbeddings, MockLlm } from '../../src/llm/mock';
import { createMemoryStores } from '../../src/store/memory';
import type { Stores } from '../../src/store/ports';
import { makeDocument } from '../contract/fixtures';

/** A small knowledge base written through the store ports, in the record shapes ingestion writes. */

export interface FixtureDocument {
  id: string;
  title: string;
  created_at: string;
  chunks: string[];
}

export const DOCUMENTS: FixtureDocument[] = [
  {
    id: 'doc-acme',
    title: 'Acme annual report',
    created_at: '2024-01-10T09:00:00.000Z',
    chunks: [
      'Alice Smith works at Acme Corporation as chief scientist. Alice Smith leads the graph database team.',
      'Acme Corporation is headquartered in Berlin. Acme Corporation builds graph databases for banks.',
    ],
  },
  {
    id: 'doc-globex',
    title: 'Globex research notes',
    created_at: '2024-06-01T09:00:00.000Z',
    chunks: [
      'Bob Jones leads Globex. Globex studies quantum computing in its Tokyo laboratory.',
      'Quantum computing at Globex uses superconducting qubits cooled near absolute zero.',
    ],
  },
  {
    id: 'doc-travel',
    title: 'Travel diary: Paris',
    created_at: '2024-09-15T09:00:00.000Z',
    chunks: ['The Louvre in Paris holds the Mona Lisa. Paris museums open late on Fridays.'],
  },
];

type EntitySpec = [name: string, type: string, description: string, chunks: string[]];

export const ENTITIES: EntitySpec[] = [
  ['Alice Smith', 'PERSON', 'Alice Smith is the chief scientist of Acme Corporation.', ['doc-acme-chunk-0']],
  ['Acme Corporation', 'ORGANIZATION', 'Acme Corporation builds graph databases in Berlin.', ['doc-acme-chunk-0', 'doc-acme-chunk-1']],
  ['Berlin', 'LOCATION', 'Berlin is the city where Acme Corporation is headquartered.', ['doc-acme-chunk-1']],
  ['Graph Databases', 'TECHNOLOGY', 'Graph databases store entities and relationships.', ['doc-acme-chunk-0', 'doc-acme-chunk-1']],
  ['Bob Jones', 'PERSON', 'Bob Jones leads Globex.', ['doc-globex-chunk-0']],
  ['Globex', 'ORGANIZATION', 'Globex is a research company studying quantum computing.', ['doc-globex-chunk-0', 'doc-globex-chunk-1']],
  ['Quantum Computing', 'CONCEPT', 'Quantum computing uses qubits.', ['doc-globex-chunk-0', 'doc-globex-chunk-1']],
  ['Tokyo', 'LOCATION', 'Tokyo hosts the Globex laboratory.', ['doc-globex-chunk-0']],
  ['Louvre', 'LOCATION', 'The Louvre is a museum in Paris holding the Mona Lisa.', ['doc-travel-chunk-0']],
  ['Paris', 'LOCATION', 'Paris is the capital of France with many museums.', ['doc-travel-chunk-0']],
];

type RelationshipSpec = [a: string, b: string, type: string, keywords: string[], description: string, chunks: string[]];

export const RELATIONSHIPS: RelationshipSpec[] = [
  [
    'Alice Smith',
    'Acme Corporation',
    'WORKS_WITH',
    ['employment', 'leadership'],
    'Alice Smith works at Acme Corporation.',
    ['doc-acme-chunk-0'],
  ],
  ['Acme Corporation', 'Berlin', 'LOCATED_IN', ['headquarters'], 'Acme Corporation is headquartered in Berlin.', ['doc-acme-chunk-1']],
  [
    'Acme Corporation',
    'Graph Databases',
    'RELATED_TO',
    ['products', 'technology'],
    'Acme Corporation builds graph databases.',
    ['doc-acme-chunk-1'],
  ],
  ['Bob Jones', 'Globex', 'WORKS_WITH', ['leadership'], 'Bob Jones leads Globex.', ['doc-globex-chunk-0']],
  [
    'Globex',
    'Quantum Computing',
    'RELATED_TO',
    ['research', 'physics'],
    'Globex researches quantum computing.',
    ['doc-globex-chunk-0', 'doc-globex-chunk-1'],
  ],
  ['Globex', 'Tokyo', 'LOCATED_IN', ['laboratory'], 'Globex has a laboratory in Tokyo.', ['doc-globex-chunk-0']],
  ['Louvre', 'Paris', 'LOCATED_IN', ['museum', 'art'], 'The Louvre is located in Paris.', ['doc-travel-chunk-0']],
];

export const entityIdOf = (name: string) => name.toUpperCase().replace(/ /g, '_');
const docOf = (chunk: string) => chunk.replace(/-chunk-\d+$/, '');

export async function seedKnowledgeBase(stores: Stores, scope: Scope, embedder = new MockEmbeddings()): Promise<void> {
  for (const d of DOCUMENTS) {
    const content = d.chunks.join('\n');
    await stores.documents.insert(scope, documentRecord(d, content));
    const chunks: ChunkRecord[] = d.chunks.map((text, index) => chunkRecord(d.id, index, text, d.created_at));
    await stores.chunks.upsertMany(scope, chunks);
    const vectors = await embedder.embed(d.chunks);
    await stores.vectors.upsert(
      scope,
      'chunk',
      chunks.map((c, i) => ({ id: c.id, vector: vectors[i], document_ids: [d.id] })),
    );
  }
  const entities: EntityRecord[] = ENTITIES.map(([name, type, description, chunks]) => ({
    id: entityIdOf(name),
    name,
    entity_type: type,
    description,
    source_chunk_ids: chunks,
    document_ids: [...new Set(chunks.map(docOf))],
    created_at: DOCUMENTS[0].created_at,
    updated_at: DOCUMENTS[0].created_at,
  }));
  await stores.graph.upsertEntities(scope, entities);
  const entityVectors = await embedder.embed(entities.map((e) => `${e.name}: ${e.description}`));
  await stores.vectors.upsert(
    scope,
    'entity',
    entities.map((e, i) => ({ id: e.id, vector: entityVectors[i], document_ids: e.document_ids })),
  );
  const relationships: RelationshipRecord[] = RELATIONSHIPS.map(([a, b, type, keywords, description, chunks]) => {
    const [id, source, target] = relationshipId(entityIdOf(a), entityIdOf(b));
    return {
      id,
      source,
      target,
      relation_type: type,
      keywords,
      description,
      weight: 1,
      source_chunk_ids: chunks,
      document_ids: [...new Set(chunks.map(docOf))],
      created_at: DOCUMENTS[0].created_at,
      updated_at: DOCUMENTS[0].created_at,
    };
  });
  await stores.graph.upsertRelationships(scope, relationships);
  const relationshipVectors = await embedder.embed(
    relationships.map((r) => `${r.keywords.join(', ')}\n${r.source} ${r.target}\n${r.description}`),
  );
  await stores.vectors.upsert(
    scope,
    'relationship',
    relationships.map((r, i) => ({ id: r.id, vector: relationshipVectors[i], document_ids: r.document_ids })),
  );
}

function documentRecord(d: FixtureDocument, content: string): DocumentRecord {
  return makeDocument({
    id: d.id,
    title: d.title,
    content,
    file_size: content.length,
    metadata: {},
    chunk_count: d.chunks.length,
    created_at: d.created_at,
    updated_at: d.created_at,
    processed_at: d.created_at,
    processing_time_ms: 1,
    llm_model: 'mock-llm',
    embedding_model: 'mock-embedding',
    options: { enable_gleaning: false, max_gleaning: 0, use_llm_summarization: false },
  });
}

function chunkRecord(documentId: string, index: number, content: string, createdAt: string): ChunkRecord {
  return {
    id: chunkId(documentId, index),
    document_id: documentId,
    index,
    content,
    tokens: Math.ceil(content.length / 4),
    char_start: 0,
    char_end: content.length,
    start_line: index + 1,
    end_line: index + 1,
    page_start: null,
    page_end: null,
    extraction_status: 'completed',
    extraction_error: null,
    entity_ids: [],
    relationship_ids: [],
    llm_model: 'mock-llm',
    embedding_model: 'mock-embedding',
    created_at: createdAt,
  };
}

/** The mock LLM, recording every call it answers. */
export class RecordingLlm implements LlmProvider {
  readonly calls: Array<{ messages: ChatMessage[]; options: CompletionOptions }> = [];
  private readonly inner: LlmProvider;

  constructor(
    readonly provider = 'mock',
    readonly model = 'mock-llm',
    private readonly override?: (messages: ChatMessage[], options: CompletionOptions) => string | null,
  ) {
    this.inner = new MockLlm(provider, model);
  }

  async complete(messages: ChatMessage[], options: CompletionOptions = {}): Promise<Completion> {
    this.calls.push({ messages, options });
    const text = this.override?.(messages, options);
    if (text !== undefined && text !== null) return { text, usage: { input_tokens: 10, output_tokens: 5 } };
    return this.inner.complete(messages, options);
  }

  async *stream(messages: ChatMessage[], options: CompletionOptions = {}): AsyncGenerator<string, TokenUsage, void> {
    this.calls.push({ messages, options });
    return yield* this.inner.stream(messages, options);
  }
}

export function freshStores(): Stores {
  return createMemoryStores();
}

export interface LlmCall {
  provider: string;
  model: string;
  kind: 'complete' | 'stream';
  task?: string;
  options: CompletionOptions;
  messages: ChatMessage[];
}

interface ProviderSource {
  providers: { llm(provider?: string, model?: string): LlmProvider };
}

/**
 * Records every model call the service makes, optionally replacing the model. Returns the calls and a
 * function that restores the registry.
 */
export function recordLlmCalls(rt: ProviderSource, replace?: (inner: LlmProvider) => LlmProvider): { calls: LlmCall[]; restore(): void } {
  const calls: LlmCall[] = [];
  const registry = rt.providers;
  const original = registry.llm;
  registry.llm = (provider?: string, model?: string) => {
    const resolved = original.call(registry, provider, model);
    const inner = replace ? replace(resolved) : resolved;
    return {
      provider: inner.provider,
      model: inner.model,
      complete(messages, options = {}) {
        calls.push({ provider: inner.provider, model: inner.model, kind: 'complete', task: options.task, options, messages });
        return inner.complete(messages, options);
      },
      stream(messages, options = {}) {
        calls.push({ provider: inner.provider, model: inner.model, kind: 'stream', task: options.task, options, messages });
        return inner.stream(messages, options);
      },
    };
  };
  return {
    calls,
    restore: () => {
      registry.llm = original;
    },
  };
}

/** A model that streams `fragments` with a pause before each, counting what it produced; optional failure. */
export class ScriptedLlm implements LlmProvider {
  produced = 0;
  constructor(
    private readonly fragments: string[],
    private readonly options: { delayMs?: number; failAfter?: number; keywords?: string } = {},
    readonly provider = 'mock',
    readonly model = 'mock-llm',
  ) {}

  async complete(_messages: ChatMessage[], options: CompletionOptions = {}): Promise<Completion> {
    if (options.task === 'keywords') {
      return {
        text: this.options.keywords ?? '{"high_level_keywords": [], "low_level_keywords": []}',
        usage: { input_tokens: 3, output_tokens: 2 },
      };
    }
    if (this.options.failAfter !== undefined) throw new Error('model exploded');
    return { text: this.fragments.join(''), usage: { input_tokens: 3, output_tokens: this.fragments.length } };
  }

  async *stream(_messages: ChatMessage[], options: CompletionOptions = {}): AsyncGenerator<string, TokenUsage, void> {
    for (let i = 0; i < this.fragments.length; i++) {
      if (this.options.failAfter !== undefined && i >= this.options.failAfter) throw new Error('model exploded');
      if (this.options.delayMs) await new Promise((resolve) => setTimeout(resolve, this.options.delayMs));
      if (options.signal?.aborted) throw new DOMException('aborted', 'AbortError');
      this.produced++;
      yield this.fragments[i];
    }
    return { input_tokens: 3, output_tokens: this.fragments.length };
  }
}

export interface SseEvent {
  /** The data lines joined with newlines, as an EventSource delivers them. */
  data: string;
}

/** Reads a whole SSE body into its events (comments dropped). */
export async function readSse(res: Response): Promise<SseEvent[]> {
  const text = await res.text();
  return parseSse(text);
}

export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
    if (data.length) events.push({ data: data.join('\n') });
  }
  return events;
}

export function jsonEvents(events: SseEvent[]): Array<Record<string, unknown> & { type: string }> {
  return events.map((e) => JSON.parse(e.data) as Record<string, unknown> & { type: string });
}
