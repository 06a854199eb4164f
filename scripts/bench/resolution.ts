/**
 * Entity resolution and incremental update benchmark: `npx tsx scripts/bench/resolution.ts
 * [--parts update,quality,retrieval,throughput] [--chunks 50] [--repeat 2] [--documents 100]`.
 *
 * - update: a `--chunks`-chunk document with every tenth paragraph rewritten, updated in place, against a full
 *   ingest of the new text in a fresh workspace: LLM calls counted at the provider.
 * - quality: the mentions of `corpus/resolution-set.ts` (planted aliases of several kinds, look-alikes) are added
 *   to an embedded graph a few at a time, as documents would add them, each batch resolved as ingestion resolves
 *   a document's new entities (name index, entity vector index, the mock LLM in the review band). Prints the
 *   precision and recall of the merges over pairs of distinct entity ids, and recall per alias kind.
 * - retrieval: documents state facts under aliases ("IBM acquired ..."), questions name the canonical entity;
 *   the fraction of questions whose fact appears in the `context_only` context, resolution on vs off.
 * - throughput: `--documents` generated documents ingested with resolution on and off (mock provider, no
 *   latency); documents per second and the resolution's share of the time. Sizes are options: the machine
 *   may be shared, so compare the two columns of one run rather than runs.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { normalizeEntityId } from '../../src/domain/ids';
import type { EntityRecord, Scope } from '../../src/domain/types';
import { resolveEntityAliases } from '../../src/graph/aliases';
import { entityText } from '../../src/records/embed-text';
import { createEntityLocks } from '../../src/records/locks';
import { resolveDocumentEntities } from '../../src/ingest/resolve-stage';
import type { ChatMessage, CompletionOptions, LlmProvider, ProviderRegistry } from '../../src/llm/ports';
import { createLogger } from '../../src/logger';
import { countTokens } from '../../src/llm/tokens';
import { createRuntime, type Runtime } from '../../src/runtime';
import { resolutionMentions } from './corpus/resolution-set';
import { benchConfig, SYNCHRONOUS } from './service';
import { table } from './table';

const { values: args } = parseArgs({
  options: {
    parts: { type: 'string', default: 'update,quality,retrieval,throughput' },
    repeat: { type: 'string', default: '2' },
    documents: { type: 'string', default: '100' },
    chunks: { type: 'string', default: '50' },
  },
});
const parts = new Set(args.parts.split(','));

/** How every document of these benches is ingested: within its request, gleaning once, descriptions summarised. */
const REQUEST = {
  metadata: {},
  trackId: null,
  asyncProcessing: false,
  options: { enable_gleaning: true, max_gleaning: 1, use_llm_summarization: true },
};

async function boot(env: Record<string, string> = {}): Promise<{ rt: Runtime; calls: { llm: number } }> {
  const config = benchConfig({ fixed: { RUST_LOG: 'error', ...SYNCHRONOUS, ...env } });
  const calls = { llm: 0 };
  const wrap = (llm: LlmProvider): LlmProvider => ({
    provider: llm.provider,
    model: llm.model,
    complete(messages: ChatMessage[], options?: CompletionOptions) {
      calls.llm++;
      return llm.complete(messages, options);
    },
    stream: (messages, options) => llm.stream(messages, options),
  });
  const counted = (inner: ProviderRegistry): ProviderRegistry => ({
    llm: (provider, model) => wrap(inner.llm(provider, model)),
    embedding: (provider, model, dimension) => inner.embedding(provider, model, dimension),
    hasProvider: (name) => inner.hasProvider(name),
    defaultLlmProviderName: () => inner.defaultLlmProviderName(),
    check: () => inner.check(),
  });
  const rt = await createRuntime(config, createLogger(config.logLevel), { providers: counted });
  return { rt, calls };
}

/** Precision and recall of merges over pairs of distinct surface ids. */
async function quality(): Promise<void> {
  const { rt, calls } = await boot({ SERVICE_ENTITY_RESOLUTION: 'true' });
  const scope: Scope = { workspaceId: 'bench-resolution-quality' };
  const deps = { ...rt, entityLocks: createEntityLocks(null) };
  const mentions = resolutionMentions(Number(args.repeat));
  const embedder = rt.providers.embedding();
  const BATCH = 5;
  const started = performance.now();
  let resolveMs = 0;
  for (let i = 0; i < mentions.length; i += BATCH) {
    const docId = `doc-${i / BATCH}`;
    const batch = mentions.slice(i, i + BATCH);
    const now = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    const ids = [...new Set(batch.map((m) => normalizeEntityId(m.name)))];
    const live = await resolveEntityAliases(rt.stores.kv, scope, ids);
    const existing = new Map((await rt.stores.graph.getEntities(scope, [...live.values()])).map((e) => [e.id, e]));
    const added: EntityRecord[] = [];
    const touched: EntityRecord[] = [];
    for (const m of batch) {
      const id = live.get(normalizeEntityId(m.name)) ?? normalizeEntityId(m.name);
      const chunk = `${docId}-chunk-0`;
      const known = existing.get(id) ?? added.find((e) => e.id === id);
      if (known) {
        if (!known.source_chunk_ids.includes(chunk)) known.source_chunk_ids.push(chunk);
        if (!known.document_ids.includes(docId)) known.document_ids.push(docId);
        if (!touched.includes(known)) touched.push(known);
        continue;
      }
      const record: EntityRecord = {
        id,
        name: m.name,
        entity_type: m.type,
        description: m.description,
        source_chunk_ids: [chunk],
        document_ids: [docId],
        created_at: now,
        updated_at: now,
      };
      added.push(record);
      touched.push(record);
    }
    await rt.stores.graph.upsertEntities(scope, touched);
    const vectors = await embedder.embed(touched.map(entityText));
    await rt.stores.vectors.upsert(
      scope,
      'entity',
      touched.map((e, j) => ({ id: e.id, vector: vectors[j], document_ids: e.document_ids })),
    );
    const t = performance.now();
    await resolveDocumentEntities(
      deps,
      scope,
      {
        entityIds: touched.map((e) => e.id),
        changes: added.map((e) => ({ kind: 'node_added' as const, id: e.id })),
      },
      { documentId: docId },
    );
    resolveMs += performance.now() - t;
  }
  const wall = performance.now() - started;

  const surface = new Map<string, { cluster: string; kind: string }>();
  for (const m of mentions) {
    // Forms equal up to case share one id: it counts as the canonical form when one of them is.
    const id = normalizeEntityId(m.name);
    if (!surface.has(id) || m.kind === 'canonical') surface.set(id, { cluster: m.cluster, kind: m.kind });
  }
  const ids = [...surface.keys()];
  const final = await resolveEntityAliases(rt.stores.kv, scope, ids);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const byKind = new Map<string, { found: number; total: number }>();
  const wrong: string[] = [];
  for (let a = 0; a < ids.length; a++) {
    for (let b = a + 1; b < ids.length; b++) {
      const gold = surface.get(ids[a])!.cluster === surface.get(ids[b])!.cluster;
      const merged = final.get(ids[a]) === final.get(ids[b]);
      if (gold && merged) tp++;
      else if (merged) {
        fp++;
        wrong.push(`${ids[a]} + ${ids[b]}`);
      } else if (gold) fn++;
      if (gold) {
        const kind = [surface.get(ids[a])!.kind, surface.get(ids[b])!.kind].find((k) => k !== 'canonical') ?? 'canonical';
        const entry = byKind.get(kind) ?? { found: 0, total: 0 };
        entry.total++;
        if (merged) entry.found++;
        byKind.set(kind, entry);
      }
    }
  }
  const clusters = new Set(mentions.map((m) => m.cluster)).size;
  console.log(
    `\nResolution quality: ${mentions.length} mentions, ${ids.length} distinct entity ids, ${clusters} real entities ` +
      `(${byKind.size} alias kinds), mock provider\n`,
  );
  table([
    {
      'merge pairs (gold)': tp + fn,
      'merged pairs': tp + fp,
      precision: (tp / Math.max(1, tp + fp)).toFixed(3),
      recall: (tp / Math.max(1, tp + fn)).toFixed(3),
      'LLM confirmations': calls.llm,
      'resolution ms per new entity': (resolveMs / Math.max(1, ids.length)).toFixed(2),
      'wall s': (wall / 1000).toFixed(1),
    },
  ]);
  console.log('\nRecall by alias kind (pairs with a form of that kind):\n');
  table([...byKind].map(([kind, v]) => ({ kind, pairs: v.total, merged: v.found, recall: (v.found / v.total).toFixed(3) })));
  if (wrong.length) console.log(`\nWrong merges: ${wrong.slice(0, 20).join('; ')}`);
  await rt.close();
}

const FACTS: Array<[string, string, string]> = [
  // canonical name, the alias a second document uses, a coined fact only that document states
  ['International Business Machines Corporation', 'IBM', 'Zorvex'],
  ['Advanced Micro Devices Corporation', 'AMD', 'Quillon'],
  ['British Broadcasting Corporation', 'BBC', 'Marvella'],
  ['General Electric Company', 'GE', 'Tarnova'],
  ['United Parcel Service Corporation', 'UPS', 'Belvista'],
  ['Hewlett Packard Enterprise Corporation', 'HPE', 'Corvina'],
  ['Acme Corporation', 'ACME Corp.', 'Pellucid'],
  ['Stark Industries Inc', 'Stark Industries', 'Ostrava'],
  ['Globex Laboratories Ltd', 'Globex Laboratories', 'Halcyon'],
  ['Cyberdyne Robotics Inc', 'Cyberdyne Robotics', 'Nimbara'],
];

function factDocuments(): Array<{ title: string; content: string }> {
  return FACTS.flatMap(([canonical, alias, fact], i) => [
    {
      title: `${canonical} profile`,
      content: `${canonical} is a company based in Armonk. ${canonical} employs many engineers in Armonk. Ada Lovelace advises ${canonical}.`,
    },
    {
      title: `${alias} news ${i}`,
      content: `${alias} acquired ${fact} Systems in Lisbon. ${fact} Systems builds databases for ${alias}. ${alias} paid for ${fact} Systems in cash.`,
    },
  ]);
}

async function retrieval(): Promise<void> {
  const rows: Array<Record<string, string | number>> = [];
  for (const on of [true, false]) {
    const { rt } = await boot({ SERVICE_ENTITY_RESOLUTION: on ? 'true' : 'false' });
    const scope: Scope = { workspaceId: `bench-resolution-retrieval-${on}` };
    for (const doc of factDocuments()) await rt.documents.createFromText(scope, doc.content, { ...REQUEST, title: doc.title });
    // Other documents, so that the context budget has to choose.
    for (const content of fillerDocuments(Number(args.documents))) await rt.documents.createFromText(scope, content, REQUEST);
    const entities = (await rt.stores.graph.stats(scope)).total_nodes;
    for (const mode of ['local', 'hybrid', 'mix'] as const) {
      let found = 0;
      for (const [canonical, , fact] of FACTS) {
        const result = await rt.query.answer(scope, {
          query: `What did ${canonical} acquire?`,
          mode,
          context_only: true,
          max_entities: 8,
          max_relationships: 8,
          max_chunks: 3,
        });
        if ((result.context ?? '').includes(fact)) found++;
      }
      rows.push({
        resolution: on ? 'on' : 'off',
        mode,
        entities,
        'questions with their fact in the context': `${found} / ${FACTS.length}`,
      });
    }
    await rt.close();
  }
  console.log(
    `\nRetrieval: ${FACTS.length} questions naming the canonical entity, facts stated under an alias, ${args.documents} other ` +
      'documents; context_only with at most 8 entities, 8 relationships, 3 chunks\n',
  );
  table(rows);
}

/** Generated documents naming the test set's mentions, four per document. */
function fillerDocuments(documents: number): string[] {
  const mentions = resolutionMentions(1);
  return Array.from({ length: documents }, (_, i) => {
    const pick = (k: number) => mentions[(i * 7 + k * 13) % mentions.length];
    const [a, b, c, d] = [pick(0), pick(1), pick(2), pick(3)];
    return `${a.name} works with ${b.name} on project ${i}. ${c.name} met ${d.name} in Lisbon during project ${i}. ${a.name} praised ${d.name}.`;
  });
}

async function throughput(): Promise<void> {
  const documents = Number(args.documents);
  const docs = fillerDocuments(documents);
  const rows: Array<Record<string, string | number>> = [];
  for (const on of [true, false]) {
    const { rt, calls } = await boot({ SERVICE_ENTITY_RESOLUTION: on ? 'true' : 'false' });
    const scope: Scope = { workspaceId: `bench-resolution-throughput-${on}` };
    const started = performance.now();
    for (const content of docs) await rt.documents.createFromText(scope, content, REQUEST);
    const wall = performance.now() - started;
    const entities = (await rt.stores.graph.stats(scope)).total_nodes;
    rows.push({
      resolution: on ? 'on' : 'off',
      documents,
      entities,
      'documents/s': (documents / (wall / 1000)).toFixed(1),
      'ms per document': (wall / documents).toFixed(1),
      'LLM calls': calls.llm,
    });
    await rt.close();
  }
  console.log(
    `\nIngest throughput, resolution on (the default) and off (embedded, mock provider without latency, one document at a time)\n`,
  );
  table(rows);
}

/** A paragraph of 82 to 90 tokens (one chunk at 100-token windows) about entities of its own. */
function paragraph(n: number): string {
  const mentions = resolutionMentions(1);
  const [a, b] = [mentions[(n * 3) % mentions.length], mentions[(n * 3 + 1) % mentions.length]];
  let text = `${a.name} worked with ${b.name} on study ${n}. Study ${n} was reviewed by Ada Lovelace in Lisbon.`;
  while (countTokens(text) < 82) text += ' More notes follow.';
  return text;
}

/** LLM calls of an incremental update against a full ingest of the same new text: at the defaults, then resolution off. */
async function update(): Promise<void> {
  const chunks = Number(args.chunks);
  const numbers = Array.from({ length: chunks }, (_, i) => i);
  const edited = numbers.map((n) => paragraph(n % 10 === 3 ? n + 10_000 : n)).join('\n\n');
  const settings: Array<{ name: string; env: Record<string, string> }> = [
    { name: 'defaults (resolution on)', env: {} },
    { name: 'resolution off', env: { SERVICE_ENTITY_RESOLUTION: 'false' } },
  ];
  const rows: Array<Record<string, string | number>> = [];
  for (const { name, env } of settings) {
    const { rt, calls } = await boot({ SERVICE_CHUNK_TOKENS: '100', SERVICE_CHUNK_OVERLAP_TOKENS: '0', ...env });
    const scope: Scope = { workspaceId: 'bench-update' };
    const created = await rt.documents.createFromText(scope, numbers.map(paragraph).join('\n\n'), REQUEST);
    calls.llm = 0;
    let started = performance.now();
    const result = await rt.documents.update(scope, created.doc.id, { content: edited });
    const updateMs = performance.now() - started;
    const updateCalls = calls.llm;
    calls.llm = 0;
    started = performance.now();
    await rt.documents.createFromText({ workspaceId: 'bench-update-full' }, edited, REQUEST);
    const fullMs = performance.now() - started;
    const share = `${((100 * updateCalls) / Math.max(1, calls.llm)).toFixed(1)} %`;
    rows.push(
      {
        settings: name,
        run: 'update (PUT /documents/:id)',
        chunks: result.chunks_total,
        extracted: result.chunks_extracted,
        'LLM calls': updateCalls,
        ms: updateMs.toFixed(0),
        'update / full calls': share,
      },
      {
        settings: name,
        run: 'full ingest of the new text',
        chunks: result.chunks_total,
        extracted: result.chunks_total,
        'LLM calls': calls.llm,
        ms: fullMs.toFixed(0),
        'update / full calls': '',
      },
    );
    await rt.close();
  }
  console.log(`\nIncremental update: ${chunks}-chunk document, every tenth paragraph rewritten (mock provider)\n`);
  table(rows);
}

async function main(): Promise<void> {
  if (parts.has('update')) await update();
  if (parts.has('quality')) await quality();
  if (parts.has('retrieval')) await retrieval();
  if (parts.has('throughput')) await throughput();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
