import { performance } from 'node:perf_hooks';
import type { EntityRecord, Scope } from '../../src/domain/types';
import type { Stores } from '../../src/store/ports';

const TYPES = ['PERSON', 'ORGANIZATION', 'LOCATION', 'CONCEPT', 'TECHNOLOGY', 'EVENT'];

export interface EntityWriteOptions {
  entities: number;
  batch: number;
  /** Chunk ids of the workspace: each entity names two of them as sources, so MENTIONS links are written too. */
  chunkIds: string[];
}

export interface EntityWritePass {
  pass: string;
  entities: number;
  batch: number;
  seconds: number;
  perSecond: number;
}

/** Entities as the merge step writes them; `round` changes descriptions and moves every tenth to another type. */
function entitiesFor(count: number, chunkIds: string[], round: number): EntityRecord[] {
  const at = new Date(Date.UTC(2024, 0, 1 + round)).toISOString();
  return Array.from({ length: count }, (_, i) => {
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
 * Batched entity writes through GraphStore.upsertEntities, one call (one transaction) per batch: a warm-up in a
 * scratch workspace, then new entities (create) and the same ids again with new descriptions and some new types
 * (merge into existing nodes).
 */
export async function benchEntityWrites(stores: Stores, scope: Scope, options: EntityWriteOptions): Promise<EntityWritePass[]> {
  const warmupScope = { ...scope, workspaceId: `${scope.workspaceId}-entity-warmup` };
  // Long enough for the JVM to compile the write paths (the first thousands of rows run several times slower).
  const warmup = Math.max(options.batch, Math.round(options.entities / 2));
  for (const round of [1, 2, 3]) await timedUpsert(stores, warmupScope, entitiesFor(warmup, options.chunkIds, round), options.batch);
  await stores.dropWorkspace(warmupScope);

  const passes: EntityWritePass[] = [];
  for (const [round, pass] of [[1, 'create (new ids)'], [2, 'merge (same ids, new descriptions and types)']] as const) {
    const entities = entitiesFor(options.entities, options.chunkIds, round);
    const seconds = await timedUpsert(stores, scope, entities, options.batch);
    passes.push({ pass, entities: entities.length, batch: options.batch, seconds, perSecond: entities.length / seconds });
  }
  return passes;
}
