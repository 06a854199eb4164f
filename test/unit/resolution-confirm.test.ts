import type { EntityRecord, Scope } from '../../src/domain/types';
import { entityText } from '../../src/records/embed-text';
import { indexEntities } from '../../src/graph/resolution/name-index';
import { proposeMerges } from '../../src/graph/resolution/resolve';
import type { ChatMessage, CompletionOptions, LlmProvider, ProviderRegistry } from '../../src/llm/ports';
import { MockEmbeddings, MockLlm } from '../../src/llm/mock';
import { makeEntity } from '../contract/fixtures';
import { graphDeps } from './graph-fixtures';

/**
 * The LLM's confirmation of resolution candidates: the pairs of a run in one call, verdicts read defensively from
 * what real models write (the mock's hostile behaviours), a verdict given kept and not asked for again, and the
 * entities' vectors taken from the caller rather than embedded.
 */

const SETTINGS = { enabled: true, merge_score: 0.9, review_score: 0.7 };
const KNOWN = ['Microsoft Corporation', 'Globex Corporation', 'Initech Corporation', 'Umbrella Corporation'];
const TYPOS = ['Microsfot Corporation', 'Glboex Corporation', 'Initehc Corporation', 'Umbrela Corporation'];
const embeddings = new MockEmbeddings('mock', 'mock-embedding', 256);

function entity(name: string, created: string): EntityRecord {
  const id = name.toUpperCase().replace(/ /g, '_');
  return makeEntity(id, {
    name,
    entity_type: 'ORGANIZATION',
    description: `${name} builds robots in Lisbon. ${name} employs many engineers in Lisbon.`,
    source_chunk_ids: [`chunk-${id}`],
    created_at: created,
  });
}

/** A graph of the known names and their typos, each with a vector in the index; the typos are to resolve. */
async function seeded(model: string) {
  const deps = graphDeps();
  const calls: Array<{ messages: ChatMessage[]; options?: CompletionOptions }> = [];
  const mock = new MockLlm('mock', model);
  const llm: LlmProvider = {
    provider: mock.provider,
    model: mock.model,
    complete: (messages, options) => {
      calls.push({ messages, options });
      return mock.complete(messages, options);
    },
    stream: (messages, options) => mock.stream(messages, options),
  };
  deps.providers = { ...deps.providers, embedding: deps.providers.embedding, llm: () => llm } as ProviderRegistry;
  const scope: Scope = { workspaceId: `ws-confirm-${model}` };
  const known = KNOWN.map((n) => entity(n, '2024-01-01T00:00:00.000Z'));
  const fresh = TYPOS.map((n) => entity(n, '2024-02-01T00:00:00.000Z'));
  const all = [...known, ...fresh];
  const vectors = new Map((await embeddings.embed(all.map(entityText))).map((v, i) => [all[i].id, v]));
  await deps.stores.graph.upsertEntities(scope, all);
  await deps.stores.vectors.upsert(
    scope,
    'entity',
    all.map((e) => ({ id: e.id, vector: vectors.get(e.id) as number[], document_ids: [] })),
  );
  await indexEntities(deps.stores.kv, deps.entityLocks, scope, all);
  const propose = () =>
    proposeMerges(deps, scope, fresh, SETTINGS, {
      confirm: true,
      vectors: async (entities) => entities.map((e) => vectors.get(e.id) as number[]),
    });
  return { deps, calls, propose };
}

const decisions = (run: Awaited<ReturnType<Awaited<ReturnType<typeof seeded>>['propose']>>) =>
  Object.fromEntries(run.proposals.map((p) => [p.source_name, p.decision]));

describe('confirmation of resolution candidates', () => {
  it('asks the pairs of a run in one call, embeds nothing, and does not ask a judged pair again', async () => {
    const { deps, calls, propose } = await seeded('mock-llm');
    const run = await propose();
    expect(decisions(run)).toEqual(Object.fromEntries(TYPOS.map((n) => [n, 'confirmed'])));
    expect(run.proposals.map((p) => p.target_name).sort()).toEqual([...KNOWN].sort());
    expect(run.llm_calls).toBe(1);
    expect(calls).toHaveLength(1);
    expect(calls[0].options?.task).toBe('resolve');
    for (const name of [...KNOWN, ...TYPOS]) expect(calls[0].messages[1].content).toContain(name);
    expect(deps.embedded).toEqual([]);

    const again = await propose();
    expect(decisions(again)).toEqual(decisions(run));
    expect(again.llm_calls).toBe(0);
    expect(calls).toHaveLength(1);
  });

  it.each([
    ['echo', [] as string[]],
    ['refuse', []],
    ['empty', []],
    ['prose', TYPOS],
    ['fenced', TYPOS],
    ['think', TYPOS],
  ])('reads what a model that answers as %s writes: a pair is merged only on its own clear YES', async (behaviour, merged) => {
    const { propose } = await seeded(`mock-${behaviour}`);
    const run = await propose();
    const confirmed = run.proposals.filter((p) => p.decision === 'confirmed').map((p) => p.source_name);
    expect(confirmed.sort()).toEqual([...merged].sort());
    expect(run.proposals.every((p) => p.decision === 'confirmed' || p.decision === 'rejected')).toBe(true);
  });

  it('merges none of the pairs an answer cut off or looping leaves without a verdict, and asks them again later', async () => {
    for (const behaviour of ['truncate', 'loop']) {
      const { calls, propose } = await seeded(`mock-${behaviour}`);
      const run = await propose();
      const confirmed = run.proposals.filter((p) => p.decision === 'confirmed');
      expect(confirmed.length).toBeGreaterThan(0);
      expect(confirmed.length).toBeLessThan(TYPOS.length);
      await propose();
      // The pairs without a verdict are asked again; those answered are not.
      expect(calls).toHaveLength(2);
      const asked = calls[1].messages[1].content;
      for (const p of confirmed) expect(asked).not.toContain(p.source_name);
    }
  });
});
