import type { ChunkRecord } from '../../src/domain/types';
import { MockEmbeddings } from '../../src/llm/mock';
import { countTokens } from '../../src/llm/tokens';
import { applyTokenBudget } from '../../src/retrieval/budget';
import { chunkHeading } from '../../src/retrieval/prompts/context';
import { chunksOfSelection } from '../../src/retrieval/steps/chunks';
import type { GraphSelection } from '../../src/retrieval/steps/expand';
import { DEFAULT_BUDGET, type ScoredChunk } from '../../src/retrieval/types';
import type { Stores } from '../../src/store/ports';
import { entityIdOf, freshStores, seedKnowledgeBase } from './retrieval-fixtures';

const scope = { workspaceId: 'ws-graph-chunks' };
const embedder = new MockEmbeddings();
let stores: Stores;

beforeAll(async () => {
  stores = freshStores();
  await seedKnowledgeBase(stores, scope, embedder);
});

async function selectionOf(names: string[]): Promise<GraphSelection> {
  const records = await stores.graph.getEntities(scope, names.map(entityIdOf));
  return { entities: records.map((record, i) => ({ record, score: 1 - i / 10, degree: 0 })), relationships: [] };
}

describe('chunks of the graph selection', () => {
  // Alice Smith and Acme Corporation both cite chunk 0; only Acme Corporation cites chunk 1, the one that answers.
  const names = ['Alice Smith', 'Acme Corporation'];
  const question = 'Where is Acme Corporation headquartered in Berlin?';

  it('ranks by citations without a question vector', async () => {
    const chunks = await chunksOfSelection(stores, scope, await selectionOf(names), 5, null);
    expect(chunks.map((c) => c.record.id)).toEqual(['doc-acme-chunk-0', 'doc-acme-chunk-1']);
  });

  it('ranks the cited chunks by similarity to the question when given its vector, score being the cosine', async () => {
    const [vector] = await embedder.embed([question]);
    const chunks = await chunksOfSelection(stores, scope, await selectionOf(names), 5, null, vector);
    expect(chunks.map((c) => c.record.id)).toEqual(['doc-acme-chunk-1', 'doc-acme-chunk-0']);
    const [hit] = await stores.vectors.search(scope, 'chunk', vector, 1, { ids: ['doc-acme-chunk-1'] });
    expect(chunks[0].score).toBeCloseTo(hit.score, 6);
    expect(chunks[0].score).toBeGreaterThan(chunks[1].score);
  });

  it('ranks the chunk after each cited one with them when asked: the next chunk goes on where its entity is named', async () => {
    const [vector] = await embedder.embed([question]);
    // Alice Smith is named in chunk 0 only; chunk 1, which follows it, answers the question.
    const alice = await selectionOf(['Alice Smith']);
    const cited = await chunksOfSelection(stores, scope, alice, 5, null, vector);
    expect(cited.map((c) => c.record.id)).toEqual(['doc-acme-chunk-0']);
    const withFollowers = await chunksOfSelection(stores, scope, alice, 5, null, vector, true);
    expect(withFollowers.map((c) => c.record.id)).toEqual(['doc-acme-chunk-1', 'doc-acme-chunk-0']);
    const [hit] = await stores.vectors.search(scope, 'chunk', vector, 1, { ids: ['doc-acme-chunk-1'] });
    expect(withFollowers[0].score).toBeCloseTo(hit.score, 6);
    // Berlin is named in the last chunk of its document: nothing follows it. Under a filter, followers keep to it too.
    const berlin = await chunksOfSelection(stores, scope, await selectionOf(['Berlin']), 5, null, vector, true);
    expect(berlin.map((c) => c.record.id)).toEqual(['doc-acme-chunk-1']);
    const [tokyo] = await embedder.embed(['Which laboratory studies quantum computing with qubits?']);
    const both = await selectionOf(['Alice Smith', 'Bob Jones']);
    const globexOnly = await chunksOfSelection(stores, scope, both, 5, new Set(['doc-globex']), tokyo, true);
    expect(globexOnly.map((c) => c.record.id).sort()).toEqual(['doc-globex-chunk-0', 'doc-globex-chunk-1']);
  });

  it('keeps to maxChunks and to the allowed documents', async () => {
    const [vector] = await embedder.embed([question]);
    const selection = await selectionOf([...names, 'Bob Jones']);
    expect(await chunksOfSelection(stores, scope, selection, 1, null, vector)).toHaveLength(1);
    const onlyGlobex = await chunksOfSelection(stores, scope, selection, 5, new Set(['doc-globex']), vector);
    expect(onlyGlobex.map((c) => c.record.id)).toEqual(['doc-globex-chunk-0']);
  });
});

describe('chunks of a selection with popular entities', () => {
  const wide = { workspaceId: 'ws-graph-chunks-wide' };
  // 40 items citing from 600 chunks: a few hubs cite hundreds, the rest a handful; ties on count and rank are common.
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const chunkIds = Array.from({ length: 600 }, (_, i) => `doc-${i % 30}-chunk-${i}`);
  const items = Array.from({ length: 40 }, (_, i) => {
    const size = i % 13 === 0 ? 300 : 1 + Math.floor(random() * 12);
    const cited = new Set<string>();
    while (cited.size < size) cited.add(chunkIds[Math.floor(random() * chunkIds.length)]);
    return { record: { id: `E${i}`, source_chunk_ids: [...cited] } as never, score: 1 - i / 100, degree: 0 };
  });

  beforeAll(async () => {
    const records = chunkIds.map((id, index) => ({
      ...({} as ChunkRecord),
      id,
      document_id: id.slice(0, id.lastIndexOf('-chunk-')),
      index,
      content: `chunk ${index}`,
      tokens: 3,
      entity_ids: [],
      relationship_ids: [],
    }));
    await stores.chunks.upsertMany(wide, records);
  });

  it('ranks by citation count, then by the best item citing, then by id, as sorting them all does', async () => {
    const count = new Map<string, { n: number; rank: number }>();
    items.forEach(({ record }, rank) => {
      for (const id of (record as { source_chunk_ids: string[] }).source_chunk_ids) {
        const seen = count.get(id);
        if (seen) seen.n += 1;
        else count.set(id, { n: 1, rank });
      }
    });
    const expected = [...count]
      .sort(([a, x], [b, y]) => y.n - x.n || x.rank - y.rank || (a < b ? -1 : 1))
      .slice(0, 25)
      .map(([id]) => id);
    const selection: GraphSelection = { entities: items.slice(0, 25), relationships: items.slice(25) };
    const got = await chunksOfSelection(stores, wide, selection, 25, null);
    expect(got.map((c) => c.record.id)).toEqual(expected);
    expect(got[0].score).toBe(1);
    expect(got[24].score).toBeCloseTo(count.get(expected[24])!.n / count.get(expected[0])!.n, 10);
  });
});

describe('token budget', () => {
  const chunk = (id: string, tokens: number): ScoredChunk => ({ record: { id, content: 'x', tokens } as ChunkRecord, score: 1 });

  it('gives chunks the whole total when there are no entities or relationships', () => {
    const chunks = Array.from({ length: 12 }, (_, i) => chunk(`c${i}`, 1000));
    const kept = applyTokenBudget([], [], chunks, DEFAULT_BUDGET);
    // 1000 tokens plus the heading and reference marker each: 11 fit in 12,000.
    expect(kept.chunks).toHaveLength(11);
    expect(kept.tokens.chunks).toBeGreaterThan(DEFAULT_BUDGET.total - 1100);
  });

  it('passes over a chunk that does not fit and keeps the smaller ones after it, in rank order', () => {
    const kept = applyTokenBudget([], [], [chunk('a', 500), chunk('big', 900), chunk('b', 300)], {
      entities: 0,
      relationships: 0,
      chunks: 1000,
      total: 1000,
    });
    expect(kept.chunks.map((c) => c.record.id)).toEqual(['a', 'b']);
  });

  describe('cutting the last chunk', () => {
    const lines = Array.from({ length: 120 }, (_, i) => `line ${i} says something about internationalization`);
    const text = lines.join('\n');
    const long: ScoredChunk = {
      record: {
        id: 'long',
        content: text,
        tokens: countTokens(text),
        char_start: 100,
        char_end: 100 + text.length,
        start_line: 10,
        end_line: 129,
      } as ChunkRecord,
      score: 0.5,
    };
    const budget = { entities: 0, relationships: 0, chunks: 1000, total: 1000 };

    it('cuts the best chunk passed over to the tokens left, at a word end, and keeps it last', () => {
      const kept = applyTokenBudget([], [], [chunk('a', 300), long, chunk('b', 200)], budget, true);
      expect(kept.chunks.map((c) => c.record.id)).toEqual(['a', 'b', 'long']);
      const cut = kept.chunks[2].record;
      expect(text.startsWith(cut.content)).toBe(true);
      expect(text[cut.content.length]).toMatch(/\s/);
      expect(cut.tokens).toBe(countTokens(cut.content));
      expect(kept.tokens.chunks).toBeLessThanOrEqual(budget.chunks);
      // Of the 1000 tokens, less than a line's worth is left unused.
      expect(kept.tokens.chunks).toBeGreaterThan(budget.chunks - 12);
      expect(cut.end_line).toBe(10 + cut.content.split('\n').length - 1);
      expect(cut.char_end).toBe(100 + cut.content.length);
    });

    it('counts the headings as the context writes them when it cuts, so that the chunks stay within the budget', () => {
      const origin = { title: '1.3. The Inner Workings of the Project', file_path: 'text://5ab64de2-7ba8-4b4f-9e95-2a726e36abb0' };
      const placed = (c: ScoredChunk): ScoredChunk => ({ ...c, record: { ...c.record, start_line: 269, end_line: 303 }, origin });
      const kept = applyTokenBudget([], [], [placed(chunk('a', 300)), placed(long)], budget, true);
      expect(kept.chunks.map((c) => c.record.id)).toEqual(['a', 'long']);
      const written = kept.chunks.reduce((sum, c) => sum + c.record.tokens + countTokens(`[1] ${chunkHeading(c.record, origin)}`), 0);
      expect(countTokens(chunkHeading(kept.chunks[0].record, origin))).toBeGreaterThan(40);
      expect(kept.tokens.chunks).toBe(written);
      expect(written).toBeLessThanOrEqual(budget.chunks);
      expect(written).toBeGreaterThan(budget.chunks - 12);
    });

    it('keeps a whole chunk only where its heading as written fits, not the estimate', () => {
      const origin = { title: '1.3. The Inner Workings of the Project', file_path: 'text://5ab64de2-7ba8-4b4f-9e95-2a726e36abb0' };
      const placed = (id: string): ScoredChunk => ({ ...chunk(id, 460), origin });
      // 2 × (460 + 36 estimated) fit in 1000; with headings of over 40 tokens the second does not.
      expect(applyTokenBudget([], [], [placed('a'), placed('b')], budget).chunks).toHaveLength(2);
      expect(applyTokenBudget([], [], [placed('a'), placed('b')], budget, true).chunks.map((c) => c.record.id)).toEqual(['a']);
    });

    it('keeps whole chunks only by default, and cuts none when the tokens left are too few to be worth it', () => {
      expect(applyTokenBudget([], [], [chunk('a', 300), long], budget).chunks.map((c) => c.record.id)).toEqual(['a']);
      expect(applyTokenBudget([], [], [chunk('a', 920), long], budget, true).chunks.map((c) => c.record.id)).toEqual(['a']);
    });
  });
});
