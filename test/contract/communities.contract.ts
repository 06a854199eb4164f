import type { CommunityRecord } from '../../src/domain/communities';
import type { Scope } from '../../src/domain/types';
import { buildCommunities, REPORT_RELATIONSHIPS } from '../../src/graph/communities/build';
import { MockEmbeddings, MockLlm } from '../../src/llm/mock';
import type { ChatMessage, CompletionOptions } from '../../src/llm/ports';
import type { Stores } from '../../src/store/ports';
import { at, makeEntity, makeRelationship, seededRandom } from './fixtures';
import { type StoresCleanup, type StoresFactory, useStores } from './harness';

function makeCommunity(id: string, overrides: Partial<CommunityRecord> = {}): CommunityRecord {
  return {
    id,
    level: 0,
    parent_id: null,
    member_ids: ['A', 'B', 'C'],
    size: 3,
    content_hash: `hash-${id}`,
    title: `Title of ${id}`,
    summary: `Summary of ${id}`,
    findings: [{ summary: 'A knows B', explanation: 'They met.' }],
    rank: 5,
    embedding: [0.5, -0.25, 1],
    report_model: 'mock/mock-llm',
    created_at: at(0),
    updated_at: at(1),
    ...overrides,
  };
}

/** An LLM that counts the report calls it answers. */
export class CountingLlm extends MockLlm {
  reports = 0;
  override async complete(messages: ChatMessage[], options: CompletionOptions = {}) {
    if (options.task === 'community_report') this.reports++;
    return super.complete(messages, options);
  }
}

/**
 * `clusters` groups of `size` entities, dense inside (each pair linked with probability 0.6) and a few edges
 * between groups; entity `C{k}_N{i}` belongs to group k.
 */
export async function plantClusters(stores: Stores, scope: Scope, clusters: number, size: number, seed = 7): Promise<Map<string, number>> {
  const random = seededRandom(seed);
  const truth = new Map<string, number>();
  const entities = [];
  for (let k = 0; k < clusters; k++) {
    for (let i = 0; i < size; i++) {
      const id = `C${k}_N${i}`;
      truth.set(id, k);
      entities.push(makeEntity(id, { description: `Member ${i} of group ${k}.`, entity_type: k % 2 ? 'ORGANIZATION' : 'PERSON' }));
    }
  }
  await stores.graph.upsertEntities(scope, entities);
  const relationships = new Map<string, ReturnType<typeof makeRelationship>>();
  for (let k = 0; k < clusters; k++) {
    for (let i = 0; i < size; i++) {
      for (let j = i + 1; j < size; j++) {
        if (random() < 0.6) {
          const r = makeRelationship(`C${k}_N${i}`, `C${k}_N${j}`);
          relationships.set(r.id, r);
        }
      }
    }
  }
  for (let n = 0; n < clusters * 2; n++) {
    const a = Math.floor(random() * clusters);
    const b = (a + 1 + Math.floor(random() * (clusters - 1))) % clusters;
    const r = makeRelationship(`C${a}_N${Math.floor(random() * size)}`, `C${b}_N${Math.floor(random() * size)}`);
    relationships.set(r.id, r);
  }
  await stores.graph.upsertRelationships(scope, [...relationships.values()]);
  return truth;
}

/** Purity: the share of entities whose community's majority group is their own group. */
export function purity(truth: Map<string, number>, found: string[][]): number {
  let right = 0;
  let total = 0;
  for (const members of found) {
    const counts = new Map<number, number>();
    for (const id of members) counts.set(truth.get(id) as number, (counts.get(truth.get(id) as number) ?? 0) + 1);
    right += Math.max(...counts.values());
    total += members.length;
  }
  return total === truth.size ? right / total : 0;
}

/** Adjusted Rand index of two partitions of the same items. */
export function adjustedRand(truth: Map<string, number>, found: string[][]): number {
  const label = new Map<string, number>();
  found.forEach((members, c) => members.forEach((id) => label.set(id, c)));
  const ids = [...truth.keys()].filter((id) => label.has(id));
  const pairs = (n: number) => (n * (n - 1)) / 2;
  const table = new Map<string, number>();
  const rows = new Map<number, number>();
  const cols = new Map<number, number>();
  for (const id of ids) {
    const t = truth.get(id) as number;
    const f = label.get(id) as number;
    table.set(`${t}/${f}`, (table.get(`${t}/${f}`) ?? 0) + 1);
    rows.set(t, (rows.get(t) ?? 0) + 1);
    cols.set(f, (cols.get(f) ?? 0) + 1);
  }
  const index = [...table.values()].reduce((s, n) => s + pairs(n), 0);
  const a = [...rows.values()].reduce((s, n) => s + pairs(n), 0);
  const b = [...cols.values()].reduce((s, n) => s + pairs(n), 0);
  const expected = (a * b) / pairs(ids.length);
  const max = (a + b) / 2;
  return (index - expected) / (max - expected);
}

export function communityStoreContract(name: string, makeStores: StoresFactory, cleanup?: StoresCleanup): void {
  describe(`${name}: CommunityStore contract`, () => {
    const ctx = useStores(makeStores, cleanup);
    const communities = () => ctx.stores().communities;

    it('replaces all communities at once and lists them by level, rank, id', async () => {
      const scope = ctx.scope();
      await ctx.stores().graph.upsertEntities(
        scope,
        ['A', 'B', 'C'].map((id) => makeEntity(id)),
      );
      await communities().replaceAll(scope, [
        makeCommunity('c-low', { rank: 1 }),
        makeCommunity('c-high', { rank: 9 }),
        makeCommunity('c-fine', { level: 1, parent_id: 'c-high', member_ids: ['A', 'B'], size: 2 }),
        makeCommunity('c-also-high', { rank: 9 }),
      ]);
      const page = await communities().list(scope, { limit: 10, offset: 0 });
      expect(page.total).toBe(4);
      expect(page.items.map((c) => c.id)).toEqual(['c-also-high', 'c-high', 'c-low', 'c-fine']);
      expect(page.items[1]).toEqual(makeCommunity('c-high', { rank: 9 }));
      expect((await communities().list(scope, { limit: 1, offset: 1, level: 0 })).items.map((c) => c.id)).toEqual(['c-high']);
      expect((await communities().list(scope, { limit: 10, offset: 0, level: 1 })).total).toBe(1);
      expect(await communities().count(scope)).toBe(4);
      expect(await communities().get(scope, 'c-fine')).toEqual(
        makeCommunity('c-fine', { level: 1, parent_id: 'c-high', member_ids: ['A', 'B'], size: 2 }),
      );
      expect(await communities().get(scope, 'nope')).toBeNull();

      await communities().replaceAll(scope, [makeCommunity('c-next')]);
      expect((await communities().all(scope)).map((c) => c.id)).toEqual(['c-next']);
      await communities().replaceAll(scope, []);
      expect(await communities().count(scope)).toBe(0);
    });

    it('keeps workspaces apart and goes with the workspace', async () => {
      const [a, b] = [ctx.scope(), ctx.scope()];
      await communities().replaceAll(a, [makeCommunity('c-1')]);
      expect(await communities().count(b)).toBe(0);
      expect(await communities().get(b, 'c-1')).toBeNull();
      await communities().replaceAll(b, []);
      expect(await communities().count(a)).toBe(1);
      await ctx.stores().dropWorkspace(a);
      expect(await communities().count(a)).toBe(0);
    });

    it('leaves entity degrees alone: membership is not a relationship', async () => {
      const scope = ctx.scope();
      await ctx.stores().graph.upsertEntities(
        scope,
        ['A', 'B', 'C'].map((id) => makeEntity(id)),
      );
      await ctx.stores().graph.upsertRelationships(scope, [makeRelationship('A', 'B')]);
      await communities().replaceAll(scope, [makeCommunity('c-1')]);
      expect(await ctx.stores().graph.degrees(scope, ['A', 'C'])).toEqual(
        new Map([
          ['A', 1],
          ['C', 0],
        ]),
      );
      expect(await ctx.stores().graph.topByDegree(scope, 2)).toEqual(['A', 'B']);
      expect((await ctx.stores().graph.relationshipsOf(scope, ['A'])).map((r) => r.id)).toEqual([makeRelationship('A', 'B').id]);
    });

    it('recovers planted clusters and rewrites reports only for the communities that changed', async () => {
      const scope = ctx.scope();
      const stores = ctx.stores();
      const truth = await plantClusters(stores, scope, 6, 12);
      const llm = new CountingLlm();
      const deps = { stores, llm, embedder: new MockEmbeddings() };

      const first = await buildCommunities(deps, scope);
      const found = (await stores.communities.all(scope)).filter((c) => c.level === 0);
      const members = found.map((c) => c.member_ids);
      expect(purity(truth, members)).toBeGreaterThanOrEqual(0.9);
      expect(adjustedRand(truth, members)).toBeGreaterThanOrEqual(0.9);
      expect(first.communities).toBe(found.length);
      expect(first.reports_generated).toBe(found.length);
      // Communities share report calls: at least one call, never more than one per community.
      const calls = llm.reports;
      expect(calls).toBeGreaterThan(0);
      expect(calls).toBeLessThanOrEqual(found.length);
      for (const c of found) {
        expect(c.title).toMatch(/^Community of /);
        expect(c.summary.length).toBeGreaterThan(0);
        expect(c.embedding.length).toBe(256);
      }

      // Nothing changed: every report is kept, no LLM call.
      const again = await buildCommunities(deps, scope);
      expect(again).toMatchObject({ reports_generated: 0, reports_reused: found.length });
      expect(llm.reports).toBe(calls);

      // One entity of group 0 gets a new description: only its community's report is rewritten.
      const target = await stores.graph.getEntity(scope, 'C0_N0');
      await stores.graph.upsertEntities(scope, [{ ...target!, description: 'Member 0 of group 0, now its chair.' }]);
      const changed = await buildCommunities(deps, scope);
      expect(changed).toMatchObject({ reports_generated: 1, reports_reused: found.length - 1 });
      expect(llm.reports).toBe(calls + 1);

      // A relationship of group 1 weighs more: its line moves up in the prompt, but the members, what describes
      // them and the relationships shown stay the same: every report is kept.
      const group = (await stores.graph.listRelationships(scope, { limit: 10_000, offset: 0 })).items
        .filter((r) => r.source.startsWith('C1_') && r.target.startsWith('C1_'))
        .sort((a, b) => b.weight - a.weight || (a.id < b.id ? -1 : 1));
      const lastShown = group[Math.min(group.length, REPORT_RELATIONSHIPS) - 1];
      await stores.graph.upsertRelationships(scope, [{ ...lastShown, weight: lastShown.weight + 0.5 }]);
      const reweighted = await buildCommunities(deps, scope);
      expect(reweighted).toMatchObject({ reports_generated: 0, reports_reused: found.length });
      expect(llm.reports).toBe(calls + 1);
    });
  });
}
