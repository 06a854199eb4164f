import type { EntityRecord, RelationshipRecord, Scope } from '../domain/types';
import { entityText } from '../records/embed-text';
import type { TokenUsage } from '../llm/ports';
import { indexEntities } from '../graph/resolution/name-index';
import type { StaleRecords } from '../graph/merge';
import { applyMerges, type LeftToEmbed, proposeMerges } from '../graph/resolution/resolve';
import { type ResolutionSettings, resolutionSettings } from '../graph/resolution/settings';
import { entitiesWithin } from '../store/retrieval-reads';
import type { IngestDeps } from './deps';
import { embedRecordsNow, entitiesAdded, type MergeOutcome, refreshCarriedVectors } from './merge';

export interface Resolved {
  merged: number;
  /** Entities new to the graph that were matched against it. */
  checked: number;
  llm_calls: number;
  usage: TokenUsage;
}

export interface ResolveOptions {
  documentId: string;
  /** The workspace's resolution settings, when the caller has read them. */
  settings?: ResolutionSettings;
  /** The run's signal: it stops the embedding of the relationships the merge held. */
  signal?: AbortSignal;
  /** Called once the document's pairs are queued for the LLM (../verdict-queue.ts), or once it has none; idempotent. */
  asked?: () => void;
}

/**
 * Resolution after a document's merge (docs/architecture.md §5.10): the names of the entities it touched go
 * into the name index (whatever the setting, so that turning resolution on later finds them); with resolution
 * on, each entity the document added is resolved against the graph and merged into its match. A merge that
 * loses a race (its entity was merged meanwhile) is skipped. Then the relationships the merge held for it are
 * embedded, as resolution left them (resolved or not).
 */
export async function resolveDocumentEntities(
  deps: IngestDeps,
  scope: Scope,
  outcome: ResolvedOutcome,
  options: ResolveOptions,
): Promise<Resolved> {
  const held = heldRelationships(deps, scope, outcome.held ?? [], options);
  let resolved: Resolved;
  try {
    resolved = await resolve(deps, scope, outcome, options, held);
  } catch (err) {
    deps.log.warn({ err }, 'entity resolution failed; the document is merged without it');
    resolved = { merged: 0, checked: 0, llm_calls: 0, usage: { input_tokens: 0, output_tokens: 0 } };
  }
  // Past resolution: the pairs of other documents no longer wait for this one's while it embeds.
  options.asked?.();
  await held.rest();
  return resolved;
}

interface Held {
  /** Embeds the relationships with no endpoint among the entities that may merge, without waiting for them. */
  release(merging: Set<string>): void;
  /** Records resolution's merges wrote with no vector, to embed with the rest. */
  add(records: StaleRecords): void;
  /** Embeds the others and those added, as the graph holds them now, and waits until every vector is written. */
  rest(): Promise<void>;
}

/**
 * The relationships the merge held for resolution (its option `holdForResolution`): those no merge can rewrite are
 * embedded as soon as the names show it, the others once resolution has merged (those it rewrote are gone by then,
 * and their successors come back from the merges with no vector, added).
 */
function heldRelationships(deps: IngestDeps, scope: Scope, held: RelationshipRecord[], { documentId, signal }: ResolveOptions): Held {
  let left = held;
  const added: StaleRecords = { entities: [], relationships: [] };
  const started: Array<Promise<void>> = [];
  const embed = (records: StaleRecords) => {
    const written = embedRecordsNow(deps, scope, documentId, records, signal);
    // Awaited by rest(); not unhandled meanwhile.
    written.catch(() => undefined);
    started.push(written);
  };
  return {
    release(merging) {
      const free = (r: RelationshipRecord) => !merging.has(r.source) && !merging.has(r.target);
      // As the merge wrote them: a vector is written only if its record still has the text embedded.
      embed({ entities: [], relationships: left.filter(free) });
      left = left.filter((r) => !free(r));
    },
    add(records) {
      added.entities.push(...records.entities);
      added.relationships.push(...records.relationships);
    },
    async rest() {
      // Those resolution may have rewritten are read again (the rewritten are gone); those its merges wrote are current.
      const current = left.length
        ? await deps.stores.graph.getRelationships(
            scope,
            left.map((r) => r.id),
          )
        : [];
      const read = new Set(current.map((r) => r.id));
      embed({ entities: added.entities, relationships: [...current, ...added.relationships.filter((r) => !read.has(r.id))] });
      left = [];
      await Promise.all(started);
    },
  };
}

type ResolvedOutcome = Pick<MergeOutcome, 'entityIds' | 'changes' | 'entityVectors' | 'held'>;

async function resolve(
  deps: IngestDeps,
  scope: Scope,
  outcome: ResolvedOutcome,
  { documentId, asked, ...given }: ResolveOptions,
  held: Held,
): Promise<Resolved> {
  const none = { merged: 0, checked: 0, llm_calls: 0, usage: { input_tokens: 0, output_tokens: 0 } };
  // Their names only: the chunk and document ids of a hub (thousands) are not read.
  const touched = await entitiesWithin(deps.stores.graph, scope, outcome.entityIds, { chunks: 0, documents: 0 });
  await indexEntities(deps.stores.kv, deps.entityLocks, scope, touched);
  const settings = given.settings ?? (await resolutionSettings(deps.stores.kv, scope, deps.config.resolution));
  if (!settings.enabled) return none;
  const added = entitiesAdded(outcome);
  const fresh = await deps.stores.graph.getEntities(
    scope,
    touched.filter((e) => added.has(e.id)).map((e) => e.id),
  );
  const run = await proposeMerges(deps, scope, fresh, settings, {
    confirm: true,
    vectors: (entities) => queuedEntityVectors(deps, scope, entities, outcome.entityVectors),
    onCandidates: (merging) => held.release(merging),
    // In calls shared with the other documents in flight of the workspace; this one no longer holds theirs back.
    ask: (llm, pairs) => {
      const answers = deps.ingest.verdicts.ask(scope, llm, pairs);
      asked?.();
      return answers;
    },
  });
  const accepted = run.proposals.filter((p) => p.decision === 'merge' || p.decision === 'confirmed');
  // The merges carry the vectors of the records they replace and wait for no embedding: the survivors and rewritten
  // relationships that carried one are embedded again in the background, as refreshes; those that had none to carry
  // (the relationships the merge held among them) are embedded before the document completes.
  const left: LeftToEmbed = { stale: { entities: [], relationships: [] }, unembedded: { entities: [], relationships: [] } };
  try {
    const merged = (await applyMerges(deps, scope, accepted, 'resolution', left)).applied.length;
    return { merged, checked: fresh.length, llm_calls: run.llm_calls, usage: run.usage };
  } finally {
    // Also what the merges that were written before one failed left to embed.
    refreshCarriedVectors(deps, scope, documentId, left.stale);
    held.add(left.unembedded);
  }
}

/**
 * Entity vectors for resolution, embedded by nothing but the embedding queue: those the merge computed for the
 * vector index (`known`), the others taken from the queue, joining a text of theirs already queued or being
 * embedded for the index rather than sending one of their own.
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
      )
    : [];
  const embedded = new Map(missing.map((e, i) => [e.id, queued[i].vector]));
  return entities.map((e) => known?.get(e.id) ?? (embedded.get(e.id) as number[]));
}

const queueOf = (deps: Pick<IngestDeps, 'providers' | 'config' | 'ingest'>) =>
  deps.ingest.queues.of(deps.providers.embedding(), deps.config.ingest.embeddingConcurrency);
