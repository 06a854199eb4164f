import type { EntityRecord, Scope, VectorKind } from '../domain/types';
import { entityText } from '../records/embed-text';
import type { TokenUsage } from '../llm/ports';
import { indexEntities } from '../graph/resolution/name-index';
import type { StaleRecords } from '../graph/merge';
import { applyMerges, proposeMerges } from '../graph/resolution/resolve';
import { resolutionSettings } from '../graph/resolution/settings';
import { entitiesWithin } from '../store/retrieval-reads';
import type { IngestDeps } from './deps';
import { type MergeOutcome, refreshCarriedVectors } from './merge';

export interface Resolved {
  merged: number;
  /** Entities new to the graph that were matched against it. */
  checked: number;
  llm_calls: number;
  usage: TokenUsage;
}

export interface ResolveOptions {
  documentId: string;
  /** Called once the document's pairs are queued for the LLM (../verdict-queue.ts). */
  asked?: () => void;
}

/**
 * Resolution after a document's merge (docs/architecture.md §5.10): the names of the entities it touched go
 * into the name index (whatever the setting, so that turning resolution on later finds them); with resolution
 * on, each entity the document added is resolved against the graph and merged into its match. A merge that
 * loses a race (its entity was merged meanwhile) is skipped.
 */
export async function resolveDocumentEntities(
  deps: IngestDeps,
  scope: Scope,
  outcome: Pick<MergeOutcome, 'entityIds' | 'changes' | 'entityVectors'>,
  options: ResolveOptions,
): Promise<Resolved> {
  try {
    return await resolve(deps, scope, outcome, options);
  } catch (err) {
    deps.log.warn({ err }, 'entity resolution failed; the document is merged without it');
    return { merged: 0, checked: 0, llm_calls: 0, usage: { input_tokens: 0, output_tokens: 0 } };
  }
}

async function resolve(
  deps: IngestDeps,
  scope: Scope,
  outcome: Pick<MergeOutcome, 'entityIds' | 'changes' | 'entityVectors'>,
  { documentId, asked }: ResolveOptions,
): Promise<Resolved> {
  const none = { merged: 0, checked: 0, llm_calls: 0, usage: { input_tokens: 0, output_tokens: 0 } };
  // Their names only: the chunk and document ids of a hub (thousands) are not read.
  const touched = await entitiesWithin(deps.stores.graph, scope, outcome.entityIds, { chunks: 0, documents: 0 });
  await indexEntities(deps.stores.kv, deps.entityLocks, scope, touched);
  const settings = await resolutionSettings(deps.stores.kv, scope, deps.config.resolution);
  if (!settings.enabled) return none;
  const added = new Set(outcome.changes.filter((c) => c.kind === 'node_added').map((c) => c.id));
  const fresh = await deps.stores.graph.getEntities(
    scope,
    touched.filter((e) => added.has(e.id)).map((e) => e.id),
  );
  const run = await proposeMerges(deps, scope, fresh, settings, {
    confirm: true,
    vectors: (entities) => queuedEntityVectors(deps, scope, entities, outcome.entityVectors),
    // In calls shared with the other documents in flight of the workspace; this one no longer holds theirs back.
    ask: (llm, pairs) => {
      const answers = deps.ingest.verdicts.ask(scope, llm, pairs);
      asked?.();
      return answers;
    },
  });
  const accepted = run.proposals.filter((p) => p.decision === 'merge' || p.decision === 'confirmed');
  // The merges carry the vectors of the records they replace and wait for no embedding; the survivors and rewritten
  // relationships are embedded again in the background, as refreshes.
  const stale: StaleRecords = { entities: [], relationships: [] };
  const merged = (await applyMerges({ ...deps, embedRecords: queuedEmbedding(deps) }, scope, accepted, 'resolution', stale)).applied.length;
  refreshCarriedVectors(deps, scope, documentId, stale);
  return { merged, checked: fresh.length, llm_calls: run.llm_calls, usage: run.usage };
}

/**
 * Entity vectors for resolution, embedded by nothing but the embedding queue: those the merge computed for the
 * vector index (`known`), the others (records other documents in flight also merge, embedded once they have)
 * taken from the queue, waiting for the text being embedded for the index rather than sending one of their own.
 */
export async function queuedEntityVectors(
  deps: Pick<IngestDeps, 'providers' | 'config' | 'ingest'>,
  scope: Scope,
  entities: EntityRecord[],
  known?: Map<string, number[]>,
): Promise<number[][]> {
  const missing = entities.filter((e) => !known?.has(e.id));
  const queued = missing.length
    ? await queueOf(deps).embed(
        scope,
        'entity',
        missing.map((e) => ({ id: e.id, text: entityText(e) })),
        undefined,
        'now',
        true,
      )
    : [];
  const embedded = new Map(missing.map((e, i) => [e.id, queued[i].vector]));
  return entities.map((e) => known?.get(e.id) ?? (embedded.get(e.id) as number[]));
}

/**
 * The records of resolution's merges embedded through the shared queue. The queue hands a record's waiters the
 * vector of the text queued last for it: a record whose text another writer replaced meanwhile is queued again,
 * and the rare one replaced twice is embedded by the provider directly, so that the merge writes its own text's.
 */
function queuedEmbedding(deps: IngestDeps) {
  return async (scope: Scope, kind: VectorKind, records: Array<{ id: string; text: string }>): Promise<number[][]> => {
    const queue = queueOf(deps);
    const vectors: number[][] = [];
    let pending = records.map((_, i) => i);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === 2) {
        const direct = await deps.providers.embedding().embed(pending.map((i) => records[i].text));
        pending.forEach((i, j) => (vectors[i] = direct[j]));
        break;
      }
      const embedded = await queue.embed(
        scope,
        kind,
        pending.map((i) => records[i]),
      );
      pending.forEach((i, j) => (vectors[i] = embedded[j].vector));
      pending = pending.filter((i, j) => embedded[j].text !== records[i].text);
    }
    return vectors;
  };
}

const queueOf = (deps: Pick<IngestDeps, 'providers' | 'config' | 'ingest'>) =>
  deps.ingest.queues.of(deps.providers.embedding(), deps.config.ingest.embeddingConcurrency);
