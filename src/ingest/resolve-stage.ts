import type { Scope } from '../domain/types';
import type { TokenUsage } from '../llm/ports';
import { indexEntities } from '../graph/resolution/name-index';
import { applyMerges, proposeMerges } from '../graph/resolution/resolve';
import { resolutionSettings } from '../graph/resolution/settings';
import { entitiesWithin } from '../store/retrieval-reads';
import type { IngestDeps } from './deps';
import type { MergeOutcome } from './merge';

export interface Resolved {
  merged: number;
  /** Entities new to the graph that were matched against it. */
  checked: number;
  llm_calls: number;
  usage: TokenUsage;
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
  outcome: Pick<MergeOutcome, 'entityIds' | 'changes'>,
): Promise<Resolved> {
  try {
    return await resolve(deps, scope, outcome);
  } catch (err) {
    deps.log.warn({ err }, 'entity resolution failed; the document is merged without it');
    return { merged: 0, checked: 0, llm_calls: 0, usage: { input_tokens: 0, output_tokens: 0 } };
  }
}

async function resolve(deps: IngestDeps, scope: Scope, outcome: Pick<MergeOutcome, 'entityIds' | 'changes'>): Promise<Resolved> {
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
  const run = await proposeMerges(deps, scope, fresh, settings, { confirm: true });
  const accepted = run.proposals.filter((p) => p.decision === 'merge' || p.decision === 'confirmed');
  const merged = (await applyMerges(deps, scope, accepted)).applied.length;
  return { merged, checked: fresh.length, llm_calls: run.llm_calls, usage: run.usage };
}
