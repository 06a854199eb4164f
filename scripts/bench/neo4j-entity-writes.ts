import { performance } from 'node:perf_hooks';
import type { EntityRecord, Scope } from '../../src/domain/types';
import type { Stores } from '../../src/store/ports';

const WARMUP_ROUNDS = 5;
const TYPES = ['PERSON', 'ORGANIZATION', 'LOCATION', 'CONCEPT', 'TECHNOLOGY', 'EVENT'];

export interface EntityWriteOptions {
  entities: number;
  batch: number;
  /** Chunk ids of the workspace: each entity names two of them as sources, so MENTIONS links are written too. */
  chunkIds: string[];
  /** CPU seconds used so far by the Neo4j process, when it is local. */
  serverCpuSeconds: () => number | null;
}

export interface EntityWritePass {
  pass: string;
  entities: number;
  batch: number;
  seconds: number;
  perSecond: number;
  /** CPU seconds of this process (the service side) and of Neo4j during the pass. */
  nodeCpuSeconds: number;
  neo4jCpuSeconds: number | null;
}

/**
 * Entities as the merge step writes them, ids `first` to `first + count - 1`; `round` changes descriptions and
 * moves every tenth to another type.
 */
function entitiesFor(count: number, chunkIds: string[], round: number, first = 0): EntityRecord[] {
  const at = new Date(Date.UTC(2024, 0, 1 + round)).toISOString();
  return Array.from({ length: count }, (_, n) => {
    const i = first + n;
    const sources = chunkIds.length ? [chunkIds[(i * 7) % chunkIds.length], chunkIds[(i * 13 + 5) % chunkIds.length]] : [];
    const type = TYPES[(i + (i % 10 === 0 ? round : 0)) % TYPES.length];
    return {
      id: `BENCH_ENTITY_${String(i).padStart(6, '0')}`,
      name: `Bench Entity ${i}`,
      entity_type: type,
      description: `Bench Entity ${i} is a ${type.toLowerCase()} described in round ${round}, with sources in ${sources.length} passages.`,
      source_chunk_ids: [...new Set(sources)],
      document_ids: [...new Set(sources.map((c) => c.replace(/-chunk-\d+$/, '')))],
      created_at: at,
      updated_at: at,
    };
  });
}

async function timedUpsert(stores: Stores, scope: Scope, entities: EntityRecord[], batch: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < entities.length; i += batch) await stores.graph.upsertEntities(scope, entities.slice(i, i + batch));
  return (performance.now() - started) / 1000;
}

/**
 * Rounds of new entities plus a merge of the previous round's, in the measured workspace (so they link to its
 * chunks like the measured rows) under ids of their own: the JVM keeps compiling the write paths for about a
 * hundred thousand rows, and until then Neo4j spends two to three times the CPU per row.
 */
async function warmUp(stores: Stores, scope: Scope, options: EntityWriteOptions): Promise<number> {
  const size = Math.max(options.batch, Math.round(options.entities / 2));
  let rows = 0;
  for (let round = 1; round <= WARMUP_ROUNDS; round++) {
    const fresh = entitiesFor(size, options.chunkIds, round, options.entities + round * size);
    const merged = round > 1 ? entitiesFor(size, options.chunkIds, round, options.entities + (round - 1) * size) : [];
    await timedUpsert(stores, scope, [...fresh, ...merged], options.batch);
    rows += fresh.length + merged.length;
  }
  return rows;
}

/**
 * Batched entity writes through GraphStore.upsertEntities, one call (one transaction) per batch: after the
 * warm-up, new entities (create) and the same ids again with new descriptions and some new types (merge into
 * existing nodes).
 */
export async function benchEntityWrites(
  stores: Stores,
  scope: Scope,
  options: EntityWriteOptions,
): Promise<{ warmupRows: number; passes: EntityWritePass[] }> {
  const warmupRows = await warmUp(stores, scope, options);

  const passes: EntityWritePass[] = [];
  for (const [round, pass] of [
    [1, 'create (new ids)'],
    [2, 'merge (same ids, new descriptions and types)'],
  ] as const) {
    const entities = entitiesFor(options.entities, options.chunkIds, round);
    const [node, neo4j] = [process.cpuUsage(), options.serverCpuSeconds()];
    const seconds = await timedUpsert(stores, scope, entities, options.batch);
    const used = process.cpuUsage(node);
    const neo4jAfter = options.serverCpuSeconds();
    passes.push({
      pass,
      entities: entities.length,
      batch: options.batch,
      seconds,
      perSecond: entities.length / seconds,
      nodeCpuSeconds: (used.user + used.system) / 1e6,
      neo4jCpuSeconds: neo4j === null || neo4jAfter === null ? null : neo4jAfter - neo4j,
    });
  }
  return { warmupRows, passes };
}
