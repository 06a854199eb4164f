/**
 * Communities and analytics benchmark:
 *
 *   npx tsx scripts/bench/communities.ts [--entities 1000,2000] [--nodes 2000] [--edges 6000] [--runs 3]
 *                                        [--neo4j bolt://127.0.0.1:7687] [--llm-latency-ms 0]
 *
 * 1. Community detection + report scheduling: a graph of planted groups (about 20 entities each, dense inside,
 *    a few links between) of each `--entities` size; times the first build (every report written by the mock
 *    LLM), a rebuild with nothing changed (no report), and a rebuild after 1 % of the entities got a new
 *    description (only their communities' reports). The full sizes are `--entities 10000,50000`.
 * 2. Each analytics query on a skewed random graph of `--nodes` entities and `--edges` relationships (median of
 *    `--runs`, after one untimed run). The full size is `--nodes 50000 --edges 150000`.
 *
 * Embedded stores by default; `--neo4j URI` runs the same against Neo4j (persistent mode).
 * Defaults are small on purpose: run the full sizes on a machine of your own.
 */
import { performance } from 'node:perf_hooks';
import type { EntityRecord, RelationshipRecord, Scope } from '../../src/domain/types';
import { createAnalyticsService } from '../../src/graph/analytics/service';
import { buildCommunities } from '../../src/graph/communities/build';
import { MockEmbeddings, MockLlm } from '../../src/llm/mock';
import type { ChatMessage, CompletionOptions } from '../../src/llm/ports';
import { createLogger } from '../../src/logger';
import { createMemoryStores } from '../../src/store/memory';
import { createNeo4jStores } from '../../src/store/neo4j';
import type { Stores } from '../../src/store/ports';
import { seeded } from './random';
import { skewedRelationships, syntheticEntityId, syntheticRelationship } from './synthetic';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1] : fallback;
}

const ENTITY_SIZES = option('entities', '1000,2000').split(',').map(Number);
const NODES = Number(option('nodes', '2000'));
const EDGES = Number(option('edges', '6000'));
const RUNS = Number(option('runs', '3'));
const NEO4J = option('neo4j', '');
const LLM_LATENCY = Number(option('llm-latency-ms', '0'));
const TYPES = ['PERSON', 'ORGANIZATION', 'CONCEPT', 'LOCATION', 'EVENT', 'TECHNOLOGY'];

class CountingLlm extends MockLlm {
  calls = 0;
  override async complete(messages: ChatMessage[], options: CompletionOptions = {}) {
    this.calls++;
    return super.complete(messages, options);
  }
}

const now = new Date().toISOString();
const id = syntheticEntityId;

function entity(i: number, description = `Entity ${i} of the benchmark corpus.`): EntityRecord {
  return {
    id: id(i),
    name: `Entity ${i}`,
    entity_type: TYPES[i % TYPES.length],
    description,
    source_chunk_ids: [`doc-${i % 500}-chunk-${i % 7}`],
    document_ids: [`doc-${i % 500}`, `doc-${(i * 7) % 500}`],
    created_at: now,
    updated_at: now,
  };
}

const relationship = (a: number, b: number): RelationshipRecord => syntheticRelationship(a, b, now);

async function write(stores: Stores, scope: Scope, entities: EntityRecord[], relationships: Map<string, RelationshipRecord>) {
  for (let i = 0; i < entities.length; i += 5_000) await stores.graph.upsertEntities(scope, entities.slice(i, i + 5_000));
  const all = [...relationships.values()];
  for (let i = 0; i < all.length; i += 5_000) await stores.graph.upsertRelationships(scope, all.slice(i, i + 5_000));
}

/** Groups of 20: each member linked to 4 others of its group; one link in 20 goes to another group. */
function plantedGraph(n: number) {
  const random = seeded(n);
  const entities = Array.from({ length: n }, (_, i) => entity(i));
  const relationships = new Map<string, RelationshipRecord>();
  for (let i = 0; i < n; i++) {
    const group = Math.floor(i / 20) * 20;
    for (let k = 0; k < 4; k++) {
      const inside = random() > 0.05;
      const j = inside ? group + Math.floor(random() * Math.min(20, n - group)) : Math.floor(random() * n);
      if (j !== i) {
        const r = relationship(i, j);
        relationships.set(r.id, r);
      }
    }
  }
  return { entities, relationships };
}

function skewedGraph(nodes: number, edges: number) {
  const random = seeded(42);
  const entities = Array.from({ length: nodes }, (_, i) => entity(i));
  const relationships = skewedRelationships(nodes, edges, random, (a, b) => relationship(a, b));
  return { entities, relationships };
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const out = await work();
  return [out, performance.now() - t];
}

/** After one untimed run: the first call of a query pays for planning (Neo4j) and compilation (V8). */
async function median(work: () => Promise<unknown>): Promise<number> {
  await work();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push((await timed(work))[1]);
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

async function main() {
  const stores = NEO4J
    ? await createNeo4jStores({
        neo4j: { uri: NEO4J, user: null, password: null, database: null },
        dimension: 256,
        log: createLogger('silent'),
      })
    : createMemoryStores();
  const mode = NEO4J ? 'neo4j' : 'memory';
  const fmt = (ms: number) => `${Math.round(ms)} ms`;
  try {
    console.log(`storage: ${mode}; mock LLM latency ${LLM_LATENCY} ms per report`);
    console.log(
      '\n| entities | relationships | communities | levels | first build | reports | unchanged rebuild | reports | 1 % changed rebuild | reports |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const n of ENTITY_SIZES) {
      const scope = { workspaceId: `bench-communities-${n}-${Date.now()}` };
      const graph = plantedGraph(n);
      await write(stores, scope, graph.entities, graph.relationships);
      const llm = new CountingLlm('mock', 'mock-llm', LLM_LATENCY);
      const deps = { stores, llm, embedder: new MockEmbeddings() };
      const [first, t1] = await timed(() => buildCommunities(deps, scope));
      const [same, t2] = await timed(() => buildCommunities(deps, scope));
      const changed = Array.from({ length: Math.max(1, Math.floor(n / 100)) }, (_, k) =>
        entity(k * 100, `Entity ${k * 100}, renamed in a later document.`),
      );
      await stores.graph.upsertEntities(scope, changed);
      const [after, t3] = await timed(() => buildCommunities(deps, scope));
      console.log(
        `| ${n} | ${graph.relationships.size} | ${first.communities} | ${first.levels} | ${fmt(t1)} | ${first.reports_generated} | ${fmt(t2)} | ${same.reports_generated} | ${fmt(t3)} | ${after.reports_generated} |`,
      );
      await stores.dropWorkspace(scope);
    }

    const scope = { workspaceId: `bench-analytics-${Date.now()}` };
    const graph = skewedGraph(NODES, EDGES);
    await write(stores, scope, graph.entities, graph.relationships);
    await buildCommunities({ stores, llm: new MockLlm(), embedder: new MockEmbeddings() }, scope);
    const analytics = createAnalyticsService(stores);
    const far = id(NODES - 1);
    const cases: Array<[string, () => Promise<unknown>]> = [
      ['shortest paths (hub to leaf, max 6 hops)', () => analytics.shortestPaths(scope, { from: id(0), to: far, maxHops: 6, limit: 10 })],
      [
        'neighbourhood (2 hops, 1 type, 100)',
        () => analytics.neighbourhood(scope, { entity: id(1), hops: 2, types: ['PERSON'], limit: 100 }),
      ],
      ['top by degree (10)', () => analytics.topEntities(scope, { metric: 'degree', limit: 10 })],
      ['top by PageRank (10)', () => analytics.topEntities(scope, { metric: 'pagerank', limit: 10 })],
      ['top by betweenness (10)', () => analytics.topEntities(scope, { metric: 'betweenness', limit: 10 })],
      ['co-mentioned (10)', () => analytics.coMentioned(scope, { entity: id(0), limit: 10 })],
      ['community bridges (10)', () => analytics.communityBridges(scope, { limit: 10 })],
      ['shared documents (10)', () => analytics.sharedDocuments(scope, { limit: 10 })],
    ];
    console.log(`\nanalytics on ${NODES} entities / ${EDGES} relationships (${mode}), median of ${RUNS}`);
    console.log('| query | median |');
    console.log('|---|---|');
    for (const [name, work] of cases) console.log(`| ${name} | ${fmt(await median(work))} |`);
    await stores.dropWorkspace(scope);
  } finally {
    await stores.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
