import { LlmCache } from '../../src/llm/cache/responses';
import { MockEmbeddings } from '../../src/llm/mock';
import { createBuiltinReranker, QUERY_MODES, RECIPES, retrieve } from '../../src/retrieval';
import type { RetrievalRequest } from '../../src/retrieval';
import type { Stores } from '../../src/store/ports';
import { relationshipsOfCommunities } from '../../src/retrieval/steps/communities';
import { DOCUMENTS, entityIdOf, freshStores, RecordingLlm, seedKnowledgeBase } from './retrieval-fixtures';

const scope = { workspaceId: 'ws-retrieve' };

class CountingEmbeddings extends MockEmbeddings {
  calls: string[][] = [];
  override async embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    this.calls.push(texts);
    return super.embed(texts, signal);
  }
}

let stores: Stores;
let embedder: CountingEmbeddings;

beforeAll(async () => {
  stores = freshStores();
  await seedKnowledgeBase(stores, scope);
});

beforeEach(() => {
  embedder = new CountingEmbeddings();
});

function request(overrides: Partial<RetrievalRequest> = {}): RetrievalRequest {
  return {
    scope,
    query: 'Where is Acme Corporation headquartered?',
    mode: 'hybrid',
    history: [],
    filter: null,
    limits: { maxEntities: 20, maxRelationships: 20, maxChunks: 20 },
    rerank: { enabled: false, topK: 5 },
    llm: new RecordingLlm(),
    ...overrides,
  };
}

const run = (req: RetrievalRequest, reranker = createBuiltinReranker()) =>
  retrieve({ stores, embedder, reranker, llmCache: new LlmCache() }, req);

describe('query recipes', () => {
  it('defines exactly the six modes, bypass without retrieval and only mix fusing', () => {
    expect(Object.keys(RECIPES).sort()).toEqual([...QUERY_MODES].sort());
    expect(RECIPES.bypass.llmOnly).toBe(true);
    expect(QUERY_MODES.filter((m) => RECIPES[m].fuse === 'rrf')).toEqual(['mix']);
    expect(QUERY_MODES.filter((m) => RECIPES[m].keywords)).toEqual(['local', 'global', 'hybrid', 'mix']);
  });

  it('ranks the chunk after each cited one, by similarity, in the graph modes without chunk vector search', () => {
    const graphOnly = QUERY_MODES.filter((m) => RECIPES[m].graphExpansion && !RECIPES[m].chunkVectorSearch);
    expect(graphOnly).toEqual(['local', 'global', 'hybrid']);
    expect(QUERY_MODES.filter((m) => RECIPES[m].followingChunks)).toEqual(graphOnly);
    expect(graphOnly.every((m) => RECIPES[m].graphChunkRanking === 'similarity')).toBe(true);
  });

  it('cuts the last chunk to fill the budget in naive alone, whose context is chunks only', () => {
    expect(QUERY_MODES.filter((m) => RECIPES[m].cutLastChunk)).toEqual(['naive']);
  });
});

describe('retrieve', () => {
  it('naive mode searches chunk vectors with the question and makes no keyword call', async () => {
    const llm = new RecordingLlm();
    const ctx = await run(request({ mode: 'naive', query: 'quantum computing qubits', llm }));
    expect(llm.calls).toHaveLength(0);
    expect(embedder.calls).toEqual([['quantum computing qubits']]);
    expect(ctx.sources.every((s) => s.source_type === 'chunk')).toBe(true);
    expect(ctx.sources[0]).toMatchObject({ source_type: 'chunk', document_id: 'doc-globex', reference_id: 1 });
  });

  it('local mode finds entities by low-level keywords and brings their relationships, neighbours and chunks', async () => {
    // Scripted answers differ per test: a model name of their own keeps them apart in the response cache.
    const llm = new RecordingLlm('mock', 'scripted-1', () =>
      JSON.stringify({ high_level_keywords: ['company locations'], low_level_keywords: ['Acme Corporation'] }),
    );
    const ctx = await run(request({ mode: 'local', llm }));
    expect(llm.calls.map((c) => c.options.task)).toEqual(['keywords']);
    // The question is embedded too: the chunks the entities cite are ranked by similarity to it.
    expect(embedder.calls).toEqual([['Where is Acme Corporation headquartered?', 'Acme Corporation']]);
    const entityIds = ctx.entities.map((e) => e.record.id);
    expect(entityIds[0]).toBe('ACME_CORPORATION');
    expect(entityIds).toEqual(expect.arrayContaining(['BERLIN', 'ALICE_SMITH', 'GRAPH_DATABASES']));
    expect(ctx.relationships.map((r) => r.record.id)).toEqual(
      expect.arrayContaining(['ACME_CORPORATION|BERLIN', 'ACME_CORPORATION|ALICE_SMITH']),
    );
    const acme = ctx.sources.find((s) => s.id === 'ACME_CORPORATION');
    expect(acme).toMatchObject({ source_type: 'entity', entity_type: 'ORGANIZATION', degree: 3 });
    expect(ctx.chunks.map((c) => c.record.document_id)).toContain('doc-acme');
  });

  it('global mode finds relationships by high-level keywords and brings their endpoint entities', async () => {
    const llm = new RecordingLlm('mock', 'scripted-2', () =>
      JSON.stringify({ high_level_keywords: ['museum art located in Paris'], low_level_keywords: ['x'] }),
    );
    const ctx = await run(request({ mode: 'global', query: 'Which museums are there?', llm }));
    expect(embedder.calls).toEqual([['Which museums are there?', 'museum art located in Paris']]);
    expect(ctx.relationships[0].record.id).toBe('LOUVRE|PARIS');
    expect(
      ctx.entities
        .map((e) => e.record.id)
        .slice(0, 2)
        .sort(),
    ).toEqual(['LOUVRE', 'PARIS']);
    expect(ctx.chunks[0].record.id).toBe('doc-travel-chunk-0');
  });

  it('hybrid mode embeds both keyword sets in one call and merges both sides', async () => {
    const llm = new RecordingLlm('mock', 'scripted-3', () =>
      JSON.stringify({ high_level_keywords: ['quantum research'], low_level_keywords: ['Alice Smith'] }),
    );
    const ctx = await run(request({ mode: 'hybrid', llm }));
    expect(embedder.calls).toEqual([['Where is Acme Corporation headquartered?', 'Alice Smith', 'quantum research']]);
    const ids = ctx.entities.map((e) => e.record.id);
    expect(ids).toContain('ALICE_SMITH');
    expect(ids).toContain('GLOBEX');
  });

  it('mix mode fuses graph chunks with vector chunks by reciprocal rank', async () => {
    const llm = new RecordingLlm('mock', 'scripted-4', () =>
      JSON.stringify({ high_level_keywords: ['museum'], low_level_keywords: ['Louvre'] }),
    );
    const ctx = await run(request({ mode: 'mix', query: 'superconducting qubits', llm }));
    const chunkIds = ctx.chunks.map((c) => c.record.id);
    expect(chunkIds).toContain('doc-travel-chunk-0');
    expect(chunkIds).toContain('doc-globex-chunk-1');
    for (const c of ctx.chunks) expect(c.score).toBeLessThanOrEqual(2 / 61 + 1e-9);
  });

  it('bypass mode retrieves nothing and calls neither the model nor the embedder', async () => {
    const llm = new RecordingLlm();
    const ctx = await run(request({ mode: 'bypass', llm }));
    expect(ctx.sources).toEqual([]);
    expect(ctx.contextText).toBe('');
    expect(llm.calls).toHaveLength(0);
    expect(embedder.calls).toHaveLength(0);
  });

  it('numbers chunks first, then entities, and uses the same numbers in the context text', async () => {
    const ctx = await run(request({ mode: 'hybrid' }));
    expect(ctx.sources.map((s) => s.reference_id)).toEqual(ctx.sources.map((_, i) => i + 1));
    const firstEntity = ctx.sources.findIndex((s) => s.source_type === 'entity');
    expect(ctx.sources.slice(firstEntity).every((s) => s.source_type === 'entity')).toBe(true);
    for (const s of ctx.sources) expect(ctx.contextText).toContain(`[${s.reference_id}] `);
  });

  it('restricts every mode to documents created inside the date range', async () => {
    for (const mode of ['naive', 'local', 'global', 'hybrid', 'mix'] as const) {
      const ctx = await run(request({ mode, query: 'Acme Globex Louvre', filter: { date_from: '2024-05-01', date_to: '2024-07-01' } }));
      expect(ctx.chunks.length).toBeGreaterThan(0);
      expect(new Set(ctx.chunks.map((c) => c.record.document_id))).toEqual(new Set(['doc-globex']));
      for (const e of ctx.entities) expect(e.record.document_ids).toContain('doc-globex');
      for (const r of ctx.relationships) expect(r.record.document_ids).toContain('doc-globex');
    }
  });

  it('matches document_pattern terms against titles, case-insensitively, OR-ed', async () => {
    const ctx = await run(request({ mode: 'naive', query: 'Acme Globex Louvre Paris', filter: { document_pattern: 'PARIS, acme' } }));
    expect(new Set(ctx.chunks.map((c) => c.record.document_id))).toEqual(new Set(['doc-acme', 'doc-travel']));
  });

  it('returns nothing, without a keyword call, when the filter matches no document', async () => {
    const llm = new RecordingLlm();
    const ctx = await run(request({ llm, filter: { date_from: '2030-01-01' } }));
    expect(ctx.sources).toEqual([]);
    expect(ctx.contextText).toBe('');
    expect(llm.calls).toHaveLength(0);
  });

  it('returns nothing from an empty knowledge base', async () => {
    const ctx = await run(request({ scope: { workspaceId: 'ws-empty' } }));
    expect(ctx.sources).toEqual([]);
    expect(ctx.reranked).toBe(false);
  });

  it('honours max_entities, max_relationships and max_chunks', async () => {
    const ctx = await run(request({ limits: { maxEntities: 1, maxRelationships: 1, maxChunks: 1 } }));
    expect(ctx.entities.length).toBeLessThanOrEqual(1);
    expect(ctx.relationships.length).toBeLessThanOrEqual(1);
    expect(ctx.chunks).toHaveLength(1);
  });

  it('reranks to rerank_top_k chunks with a rerank score, and says so only when it did', async () => {
    const all = { mode: 'naive' as const, query: 'Berlin headquarters', minSimilarity: -1 };
    const on = await run(request({ ...all, rerank: { enabled: true, topK: 2 } }));
    expect(on.reranked).toBe(true);
    expect(on.chunks).toHaveLength(2);
    expect(on.sources.filter((s) => s.source_type === 'chunk').every((s) => 'rerank_score' in s)).toBe(true);
    const off = await run(request({ ...all, rerank: { enabled: false, topK: 2 } }));
    expect(off.reranked).toBe(false);
    expect(off.chunks.length).toBeGreaterThan(2);
    expect(off.sources.some((s) => 'rerank_score' in s)).toBe(false);
    const none = await run(request({ mode: 'naive', scope: { workspaceId: 'ws-empty' }, rerank: { enabled: true, topK: 2 } }));
    expect(none.reranked).toBe(false);
  });

  it('drops vector hits below the similarity threshold', async () => {
    const ctx = await run(request({ mode: 'naive', query: 'superconducting qubits cooled' }));
    expect(ctx.chunks.map((c) => c.record.id)).toEqual(['doc-globex-chunk-1']);
    const loose = await run(request({ mode: 'naive', query: 'superconducting qubits cooled', minSimilarity: -1 }));
    expect(loose.chunks).toHaveLength(5);
  });

  it("takes the embedding model's similarity threshold as the cut-off unless the request sets one", async () => {
    const strict = Object.assign(new CountingEmbeddings(), { similarityThreshold: 0.999 });
    const lenient = Object.assign(new CountingEmbeddings(), { similarityThreshold: -1 });
    const naive = request({ mode: 'naive', query: 'Acme Corporation headquarters' });
    expect((await retrieve({ stores, embedder: strict, reranker: null, llmCache: new LlmCache() }, naive)).chunks).toEqual([]);
    expect((await retrieve({ stores, embedder: lenient, reranker: null, llmCache: new LlmCache() }, naive)).chunks).toHaveLength(
      DOCUMENTS.flatMap((d) => d.chunks).length,
    );
    expect(
      (await retrieve({ stores, embedder: lenient, reranker: null, llmCache: new LlmCache() }, { ...naive, minSimilarity: 0.999 })).chunks,
    ).toEqual([]);
  });

  it('keeps each context section within its token budget', async () => {
    const ctx = await run(request({ mode: 'hybrid', budget: { entities: 30, relationships: 30, chunks: 60, total: 1000 } }));
    expect(ctx.entities.length).toBeGreaterThan(0);
    expect(ctx.entities.length).toBeLessThan(5);
    expect(ctx.chunks.length).toBeLessThanOrEqual(1);
    const none = await run(request({ mode: 'hybrid', budget: { entities: 0, relationships: 0, chunks: 0, total: 0 } }));
    expect(none.sources).toEqual([]);
  });

  it('falls back to terms of the question when the keyword answer is not JSON', async () => {
    const llm = new RecordingLlm('mock', 'scripted-5', () => 'Sorry, I cannot do that.');
    const ctx = await run(request({ mode: 'local', query: 'What does Bob Jones lead?', llm }));
    expect(ctx.keywords.origin).toBe('fallback');
    expect(ctx.keywords.low).toContain('Bob Jones');
    expect(ctx.entities[0].record.id).toBe(entityIdOf('Bob Jones'));
  });

  it('passes earlier turns to keyword extraction', async () => {
    const llm = new RecordingLlm();
    await run(request({ llm, history: [{ role: 'user', content: 'Tell me about Globex in Tokyo' }] }));
    expect(llm.calls[0].messages.map((m) => m.content).join('\n')).toContain('Tell me about Globex in Tokyo');
  });

  it('stops with an abort error when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(run(request({ signal: controller.signal }))).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('global retrieval once there are communities', () => {
  const withCommunities = { workspaceId: 'ws-retrieve-communities' };
  let communityStores: Stores;

  beforeAll(async () => {
    communityStores = freshStores();
    await seedKnowledgeBase(communityStores, withCommunities);
    const reportText = 'Acme Corporation, Alice Smith and Berlin: the graph database team.';
    await communityStores.communities.replaceAll(withCommunities, [
      {
        id: 'community-0-acme',
        level: 0,
        parent_id: null,
        member_ids: ['ACME_CORPORATION', 'ALICE_SMITH', 'BERLIN'],
        size: 3,
        content_hash: 'hash-acme',
        title: 'Community of Acme Corporation',
        summary: reportText,
        findings: [],
        rank: 5,
        embedding: (await new MockEmbeddings().embed([reportText]))[0],
        report_model: 'mock',
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      },
    ]);
  });

  it('takes both the reports members relationships and those nearest the high-level keywords', async () => {
    const llm = new RecordingLlm('mock', 'scripted-communities', () =>
      JSON.stringify({ high_level_keywords: ['museum art located in Paris'], low_level_keywords: ['x'] }),
    );
    const ctx = await retrieve(
      { stores: communityStores, embedder, reranker: null, llmCache: new LlmCache() },
      request({ scope: withCommunities, mode: 'global', query: 'Which museums are there?', llm, minSimilarity: -1 }),
    );
    expect(ctx.globalSource).toBe('communities');
    expect(ctx.communities.map((c) => c.record.id)).toEqual(['community-0-acme']);
    const ids = ctx.relationships.map((r) => r.record.id);
    expect(ids).toContain('LOUVRE|PARIS');
    expect(ids).toContain('ACME_CORPORATION|BERLIN');
    expect(ctx.chunks.map((c) => c.record.id)).toContain('doc-travel-chunk-0');
  });

  it("ranks the members' relationships by similarity to the high-level keywords", async () => {
    const [community] = await communityStores.communities.all(withCommunities);
    const acme = { ...community, member_ids: ['ACME_CORPORATION', 'ALICE_SMITH', 'BERLIN', 'GRAPH_DATABASES'] };
    const [keywords] = await new MockEmbeddings().embed(['graph databases products technology']);
    const ranked = await relationshipsOfCommunities(communityStores, withCommunities, [{ record: acme, score: 1 }], 1, keywords);
    expect(ranked.map((r) => r.record.id)).toEqual(['ACME_CORPORATION|GRAPH_DATABASES']);
    const unranked = await relationshipsOfCommunities(communityStores, withCommunities, [{ record: acme, score: 1 }], 1);
    expect(unranked.map((r) => r.record.id)).toEqual(['ACME_CORPORATION|ALICE_SMITH']);
  });
});
