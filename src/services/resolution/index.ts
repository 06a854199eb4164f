import { InvalidInputError } from '../../domain/errors';
import type { Scope } from '../../domain/types';
import { type AppliedMerges, applyMerges, type MergeProposal, proposeMerges } from '../../graph/resolution/resolve';
import { recordDistinct } from '../../graph/resolution/distinct';
import { resolveEntityAlias } from '../../graph/aliases';
import { normalizeEntityId } from '../../domain/ids';
import { type ResolutionSettings, resolutionSettings, saveResolutionSettings } from '../../graph/resolution/settings';
import { queuedEntityVectors } from '../../ingest/resolve-stage';
import type { ServiceHost } from '../tasks';
import { splitAlias, type SplitOutcome } from './split';

export type { AppliedMerges, MergeProposal, ResolutionSettings, SplitOutcome };

export interface Pair {
  source_id: string;
  target_id: string;
}

export interface RejectedPairs {
  rejected: Pair[];
  skipped: Array<Pair & { reason: string }>;
}

export interface DryRunInput {
  /** Entities to resolve; without them, the first `limit` entities of the workspace listing. */
  entityIds?: string[];
  limit: number;
  /** Ask the LLM about the pairs in the review band (else they are `unconfirmed`). */
  confirm: boolean;
}

/** Entity resolution for reviewers: settings, a dry run that proposes merges, applying a reviewed list, splitting. */
export function createResolutionService(host: ServiceHost) {
  const defaults = host.config.resolution;
  return {
    settings: (scope: Scope) => resolutionSettings(host.stores.kv, scope, defaults),
    async saveSettings(scope: Scope, patch: Partial<ResolutionSettings>): Promise<ResolutionSettings> {
      const current = await resolutionSettings(host.stores.kv, scope, defaults);
      const next = { ...current, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
      if (next.review_score > next.merge_score) {
        throw new InvalidInputError([{ field: 'review_score', message: `must not exceed merge_score (${next.merge_score})` }]);
      }
      return saveResolutionSettings(host.stores.kv, scope, defaults, patch);
    },
    async dryRun(scope: Scope, input: DryRunInput): Promise<{ proposals: MergeProposal[]; examined: number; llm_calls: number }> {
      const settings = await resolutionSettings(host.stores.kv, scope, defaults);
      const entities = input.entityIds
        ? await host.stores.graph.getEntities(scope, input.entityIds)
        : (await host.stores.graph.listEntities(scope, { limit: input.limit, offset: 0 })).items;
      const run = await proposeMerges(host, scope, entities, settings, {
        confirm: input.confirm,
        vectors: (listed) => queuedEntityVectors(host, scope, listed),
        // The review queue shows both similarities of every pair.
        allSimilarities: true,
      });
      return { proposals: run.proposals, examined: entities.length, llm_calls: run.llm_calls };
    },
    apply: (scope: Scope, merges: Array<{ source_id: string; target_id: string; reason?: string }>): Promise<AppliedMerges> =>
      applyMerges(
        host,
        scope,
        merges.map((m) => ({ ...m, reason: m.reason?.trim() || 'reviewed merge' })),
      ),
    /** Keeps reviewed pairs apart, as a split does: neither dry runs nor ingestion merge them from then on. */
    async reject(scope: Scope, pairs: Pair[]): Promise<RejectedPairs> {
      const out: RejectedPairs = { rejected: [], skipped: [] };
      for (const p of pairs) {
        const [a, b] = await Promise.all(
          [p.source_id, p.target_id].map((id) => resolveEntityAlias(host.stores.kv, scope, normalizeEntityId(id))),
        );
        const present = new Set((await host.stores.graph.getEntities(scope, [a, b])).map((e) => e.id));
        const missing = [a, b].filter((id) => !present.has(id));
        if (a === b) out.skipped.push({ ...p, reason: 'already one entity' });
        else if (missing.length) out.skipped.push({ ...p, reason: `entity not found: ${missing.join(', ')}` });
        else {
          await host.entityLocks.run(scope, [a, b], () => recordDistinct(host.stores.kv, scope, a, b));
          out.rejected.push({ source_id: a, target_id: b });
        }
      }
      return out;
    },
    split: (scope: Scope, entityId: string, alias: string) => splitAlias(host, scope, entityId, alias),
  };
}

export type ResolutionService = ReturnType<typeof createResolutionService>;
