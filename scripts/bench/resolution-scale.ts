/**
 * Ingest throughput with entity resolution off and on, in a graph that already holds `--sizes` entities:
 * `npx tsx scripts/bench/resolution-scale.ts [--sizes 10000,100000] [--documents 60]`, embedded stores, or
 * Neo4j with `NEO4J_URI` set. The graph is seeded through the stores (entities, their vectors, the name index),
 * then `--documents` documents naming new entities (and an alias or a name of a seeded one) are ingested one at
 * a time, mock provider without latency, with the workspace's resolution setting off, then on (other documents). The cost of resolution per new entity is the difference of the two
 * runs' times over the entities the documents added.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { normalizeEntityId } from '../../src/domain/ids';
import type { EntityRecord, Scope } from '../../src/domain/types';
import { entityText } from '../../src/records/embed-text';
import { indexTerms, NAME_INDEX_NAMESPACE } from '../../src/graph/resolution/name-index';
import { saveResolutionSettings } from '../../src/graph/resolution/settings';
import type { AppConfig } from '../../src/config/types';
import { createLogger } from '../../src/logger';
import { createRuntime, type Runtime } from '../../src/runtime';
import { table } from './table';
import { benchConfig } from './service';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    documents: { type: 'string', default: '60' },
  },
});

const SEED_BATCH = 1000;
/** Ids kept per name-index term (src/graph/resolution/name-index.ts). */
const TERM_LIMIT = 64;
const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'to', 'va', 'shi', 'dor', 'el', 'fin', 'gar', 'hu', 'is', 'jor', 'ul', 'ne', 'pra', 'qui'];
const TYPES = ['PERSON', 'ORGANIZATION', 'LOCATION'];
const SUFFIX: Record<string, string> = { PERSON: '', ORGANIZATION: ' Systems', LOCATION: ' Valley' };

/** A pronounceable word for `n` (distinct for distinct n). */
function word(n: number): string {
  let out = '';
  let k = n;
  do {
    out += SYLLABLES[k % SYLLABLES.length];
    k = Math.floor(k / SYLLABLES.length);
  } while (k > 0);
  return out[0].toUpperCase() + out.slice(1);
}

function seedName(i: number): { name: string; type: string } {
  const type = TYPES[i % TYPES.length];
  return { name: `${word(i * 7 + 3)} ${word(i)}${SUFFIX[type]}`, type };
}

async function boot(): Promise<{ rt: Runtime; config: AppConfig }> {
  const config = benchConfig({
    fixed: { RUST_LOG: 'error', SERVICE_ASYNC_THRESHOLD_BYTES: String(1024 * 1024 * 1024), NEO4J_URI: process.env.NEO4J_URI },
  });
  return { rt: await createRuntime(config, createLogger(config.logLevel)), config };
}

/** Entities, their vectors and their name-index terms written straight to the stores. */
async function seed(rt: Runtime, scope: Scope, size: number): Promise<number> {
  const started = performance.now();
  const embedder = rt.providers.embedding();
  const terms = new Map<string, string[]>();
  const now = new Date().toISOString();
  for (let from = 0; from < size; from += SEED_BATCH) {
    const batch: EntityRecord[] = [];
    for (let i = from; i < Math.min(size, from + SEED_BATCH); i++) {
      const { name, type } = seedName(i);
      batch.push({
        id: normalizeEntityId(name),
        name,
        entity_type: type,
        description: `Seeded ${type.toLowerCase()} ${i}.`,
        source_chunk_ids: [`seed-chunk-${i}`],
        document_ids: ['seed'],
        created_at: now,
        updated_at: now,
      });
    }
    const vectors = await embedder.embed(batch.map(entityText));
    await rt.stores.graph.upsertEntities(scope, batch);
    await rt.stores.vectors.upsert(
      scope,
      'entity',
      batch.map((e, i) => ({ id: e.id, vector: vectors[i], document_ids: e.document_ids })),
    );
    for (const e of batch) for (const term of indexTerms(e.name)) terms.set(term, [...(terms.get(term) ?? []), e.id].slice(-TERM_LIMIT));
  }
  // The name index as indexEntities writes it, each term once, in batches.
  const entries = [...terms];
  for (let from = 0; from < entries.length; from += SEED_BATCH) {
    await rt.stores.kv.setMany(scope, NAME_INDEX_NAMESPACE, entries.slice(from, from + SEED_BATCH));
  }
  return performance.now() - started;
}

/** Document `d`: three new people and organisations, one an alias (organisation without its suffix) of a seeded one. */
function documentText(d: number, size: number): string {
  const fresh = (k: number) => `${word(900_000 + d * 3 + k)} ${word(700_000 + d * 3 + k)}`;
  const seeded = seedName((d * 7919) % size);
  const alias = seeded.type === 'ORGANIZATION' ? seeded.name.replace(/ Systems$/, ' Systems Inc') : seeded.name;
  return (
    `${fresh(0)} met ${fresh(1)} in Lisbon during review ${d}. ${fresh(1)} works for ${alias} on review ${d}. ` +
    `${fresh(2)} advised ${fresh(0)} and ${alias}.`
  );
}

/** The same seeded workspace, resolution turned off then on through its settings; documents differ per run. */
async function runs(size: number): Promise<Array<Record<string, string | number>>> {
  const { rt, config } = await boot();
  const scope: Scope = { workspaceId: `bench-resolution-scale-${size}-${Date.now()}` };
  const seedMs = await seed(rt, scope, size);
  const documents = Number(args.documents);
  const request = {
    metadata: {},
    trackId: null,
    asyncProcessing: false,
    options: { enable_gleaning: false, use_llm_summarization: false },
  };
  const rows: Array<Record<string, string | number>> = [];
  for (const resolution of [false, true]) {
    await saveResolutionSettings(rt.stores.kv, scope, config.resolution, { enabled: resolution });
    const first = resolution ? documents + 1 : 0;
    // One document first, outside the timing: it warms up the code paths and the store's query plans.
    await rt.documents.createFromText(scope, documentText(first + documents, size), request);
    const before = (await rt.stores.graph.stats(scope)).total_nodes;
    const started = performance.now();
    for (let d = first; d < first + documents; d++) await rt.documents.createFromText(scope, documentText(d, size), request);
    const wall = performance.now() - started;
    const after = (await rt.stores.graph.stats(scope)).total_nodes;
    rows.push({
      store: process.env.NEO4J_URI ? 'neo4j' : 'memory',
      'entities in graph': size,
      resolution: resolution ? 'on' : 'off',
      'seed s': (seedMs / 1000).toFixed(1),
      documents,
      'entities added': after - before,
      'documents/s': (documents / (wall / 1000)).toFixed(1),
      'ms per document': (wall / documents).toFixed(1),
      wall,
    });
  }
  await rt.close();
  return rows;
}

/** A table per size, printed as soon as it is measured. */
async function main(): Promise<void> {
  console.log(`\nIngest with entity resolution off / on in a seeded graph (mock provider, one document at a time)`);
  for (const size of args.sizes.split(',').map(Number)) {
    const [off, on] = await runs(size);
    // Resolution looks at every entity a document adds: as many as the run without it added.
    const perEntity = (Number(on.wall) - Number(off.wall)) / Math.max(1, Number(off['entities added']));
    for (const row of [off, on]) {
      delete row.wall;
      row['resolution ms per new entity'] = row === on ? perEntity.toFixed(2) : '';
    }
    console.log('');
    table([off, on]);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
