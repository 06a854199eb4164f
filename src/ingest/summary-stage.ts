import type { EntityRecord, RelationshipRecord, Scope } from '../domain/types';
import type { GraphChange } from '../graph/events';
import { isAbortError } from '../domain/abort';
import { TimeSlicer } from '../domain/turns';
import { cachedLlm } from '../graph/llm-cache';
import type { IngestDeps } from './deps';
import { withSummary } from './descriptions';
import { type Draft, rebuildEntity, rebuildRelationship, type Summary } from './drafts';
import { entityEvidence, relationEvidence, sourceStatements } from './evidence';
import type { MergeOutcome, SummaryJob } from './merge-outcome';

export type { SummaryJob };
import { entityKey, fragmentKey, readStates, type RecordState, recordFingerprint, relationshipKey, writeStates } from './record-state';
import { policyFor, summarizeFragments, type SummaryPolicy } from './summary';

/**
 * LLM summaries of descriptions, written outside the entity lock. A merge commits the joined fragments and
 * lists the records whose summary is due; the summaries are then written without holding any lock, and
 * applied under the lock to whatever the records are by then: a summary covering fragments a record still
 * has (and no fewer than its current summary) heads its description, followed by the fragments merged
 * since; one that no longer fits is dropped, the record keeping the description it has (still true).
 * Within a process a record is summarised by one document at a time; a document finding a summary of it
 * under way leaves its own fragments to the next one.
 */

interface Written {
  job: SummaryJob;
  summary: Summary;
}

/** Runs `fn` under the entity lock of `ids`. */
export type EntityLocker = <T>(ids: string[], fn: () => Promise<T>) => Promise<T>;

type Deps = Pick<IngestDeps, 'stores'>;

const underway = new Set<string>();

export function summaryJob(kind: SummaryJob['kind'], draft: Draft<{ id: string; description: string }>, lockIds: string[]): SummaryJob {
  const { key, subject, summary, fragments, newer } = draft;
  return { kind, id: draft.record.id, key, subject, summary, fragments: [...fragments], newer: [...newer], lockIds };
}

/**
 * Writes the summaries `outcome` found due, applies them under `lock`, and folds the calls, failures,
 * changes and records to re-embed into `outcome`. Returns the changes the summaries made.
 */
export async function summariseOutcome(
  deps: Deps,
  scope: Scope,
  outcome: MergeOutcome,
  policy: SummaryPolicy,
  lock: EntityLocker,
): Promise<GraphChange[]> {
  const jobs = outcome.due;
  outcome.due = [];
  if (jobs.length === 0) return [];
  const written = await writeSummaries(deps, scope, jobs, policy, outcome);
  if (written.length === 0) return [];
  const applied = await lock([...new Set(written.flatMap((w) => w.job.lockIds))], () => applySummaries(deps, scope, written, policy));
  const changed = new Set(outcome.changes.map((c) => c.id));
  outcome.changes.push(...applied.changes.filter((c) => !changed.has(c.id)));
  outcome.reembed.entities = latest(outcome.reembed.entities, applied.entities);
  outcome.reembed.relationships = latest(outcome.reembed.relationships, applied.relationships);
  return applied.changes;
}

async function writeSummaries(
  deps: Deps,
  scope: Scope,
  jobs: SummaryJob[],
  policy: SummaryPolicy,
  outcome: MergeOutcome,
): Promise<Written[]> {
  const workspace = `${scope.tenantId ?? ''}\u0000${scope.workspaceId}\u0000`;
  const mine = jobs.filter((job) => !underway.has(workspace + job.key));
  for (const job of mine) underway.add(workspace + job.key);
  const written: Written[] = [];
  const cached = { ...policy, llm: policy.llm && cachedLlm(policy.llm, deps.stores.kv, scope) };
  try {
    const complete = await completeParts(
      deps,
      scope,
      mine.filter((job) => job.fragments.length < job.newer.length),
    );
    // Each job folds and counts its fragments before its call: they take their turns rather than one long stretch.
    const slicer = new TimeSlicer();
    await Promise.all(
      mine.map(async (job) => {
        await slicer.tick();
        const parts = job.fragments.length < job.newer.length ? complete.get(job.key) : job;
        if (!parts) return;
        try {
          const result = await summarizeFragments(
            job.subject,
            parts.summary ? [parts.summary.text, ...parts.fragments] : parts.fragments,
            cached,
          );
          outcome.llm_calls += result.llm_calls;
          outcome.usage.input_tokens += result.usage.input_tokens;
          outcome.usage.output_tokens += result.usage.output_tokens;
          // One line: descriptions are parts joined by newlines.
          const text = result.description.replace(/\s+/g, ' ').trim();
          if (text)
            written.push({ job, summary: { text, covered: [...(parts.summary?.covered ?? []), ...parts.fragments.map(fragmentKey)] } });
        } catch (err) {
          if (isAbortError(err) || policy.signal?.aborted) throw err;
          outcome.summaryFailures.push(`${job.key}: ${(err as Error).message}`);
        }
      }),
    );
  } finally {
    for (const job of mine) underway.delete(workspace + job.key);
  }
  return written;
}

type Parts = Pick<SummaryJob, 'summary' | 'fragments'>;

/**
 * Every fragment the records stand for, from their sources' cached extractions (read once for all): the
 * description of a summarised record only shows the newest of those merged since its summary.
 */
async function completeParts(deps: Deps, scope: Scope, jobs: SummaryJob[]): Promise<Map<string, Parts>> {
  const out = new Map<string, Parts>();
  if (jobs.length === 0) return out;
  const { graph, kv } = deps.stores;
  const ids = (kind: SummaryJob['kind']) => jobs.filter((job) => job.kind === kind).map((job) => job.id);
  const [entities, relationships, states] = await Promise.all([
    graph.getEntities(scope, ids('entity')),
    graph.getRelationships(scope, ids('relationship')),
    readStates(
      kv,
      scope,
      jobs.map((job) => job.key),
    ),
  ]);
  const sources = [...new Set([...entities, ...relationships].flatMap((r) => r.source_chunk_ids))];
  const { statements } = await sourceStatements(kv, scope, sources);
  const slicer = new TimeSlicer();
  for (const e of entities) {
    await slicer.tick();
    const key = entityKey(e.id);
    out.set(key, rebuildEntity(e.id, entityEvidence(statements, e.id, e.source_chunk_ids), e, states.get(key), e.updated_at));
  }
  for (const r of relationships) {
    await slicer.tick();
    const key = relationshipKey(r.id);
    out.set(key, rebuildRelationship(r.id, relationEvidence(statements, r.id, r.source_chunk_ids), r, states.get(key), r.updated_at));
  }
  return out;
}

/** Under the entity lock: each summary heads its record's description if it still applies. */
async function applySummaries(deps: Deps, scope: Scope, written: Written[], policy: SummaryPolicy) {
  const { graph, kv } = deps.stores;
  const ids = (kind: SummaryJob['kind']) => written.filter((w) => w.job.kind === kind).map((w) => w.job.id);
  const [entities, relationships, states] = await Promise.all([
    graph.getEntities(scope, ids('entity')),
    graph.getRelationships(scope, ids('relationship')),
    readStates(
      kv,
      scope,
      written.map((w) => w.job.key),
    ),
  ]);
  const records = new Map<string, EntityRecord | RelationshipRecord>([...entities, ...relationships].map((r) => [r.id, r]));
  const now = new Date().toISOString();
  const out = { changes: [] as GraphChange[], entities: [] as EntityRecord[], relationships: [] as RelationshipRecord[] };
  const statesToWrite: Array<[string, RecordState]> = [];
  const slicer = new TimeSlicer();
  for (const { job, summary } of written) {
    await slicer.tick();
    const record = records.get(job.id);
    const state = states.get(job.key);
    // An analyst changed the record since its merge: the next merge rebuilds it.
    if (!record || !state || state.written !== recordFingerprint(record)) continue;
    const overridden = state.description !== undefined;
    const next = withSummary(state.description ?? record.description, state, summary, policyFor(policy, job.kind));
    if (!next) continue;
    state.summary = next.summary;
    if (overridden) state.description = next.description;
    else if (record.description !== next.description) {
      record.description = next.description;
      record.updated_at = now;
      if ('entity_type' in record) {
        out.entities.push(record);
        out.changes.push({ kind: 'node_updated', id: record.id });
      } else {
        out.relationships.push(record);
        out.changes.push({ kind: 'edge_updated', id: record.id, source: record.source, target: record.target });
      }
    }
    state.written = recordFingerprint(record);
    statesToWrite.push([job.key, state]);
  }
  await graph.upsertEntities(scope, out.entities);
  await graph.upsertRelationships(scope, out.relationships);
  await writeStates(kv, scope, statesToWrite);
  return out;
}

/** The records of `earlier` replaced by their later versions in `later`, plus those only in `later`. */
function latest<R extends { id: string }>(earlier: R[], later: R[]): R[] {
  const byId = new Map(earlier.map((r) => [r.id, r]));
  for (const r of later) byId.set(r.id, r);
  return [...byId.values()];
}
