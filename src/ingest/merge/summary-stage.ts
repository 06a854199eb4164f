import { scopeKey } from '../../domain/ids';
import type { EntityRecord, RelationshipRecord, Scope } from '../../domain/types';
import type { GraphChange } from '../../graph/events';
import type { TokenUsage } from '../../llm/ports';
import { isAbortError } from '../../domain/abort';
import { startInSlices, TimeSlicer } from '../../domain/turns';
import { withLeases } from '../../records/leases';
import type { IngestDeps } from '../deps';
import { duePrefix, summaryDue, withSummary } from './descriptions';
import { currentParts, type Draft, rebuildEntity, rebuildRelationship, type Summary } from './drafts';
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
 * A record is summarised by one document at a time (in a runtime by its `held` records (../state.ts), across instances by a lease), and whether it is due is decided from
 * the record and merge state as stored, never from what a merge read before another summary landed: the
 * document holding a record reads it afresh before each summary and again after applying one (fragments
 * merged meanwhile may make it due again), and a document finding a record held leaves its fragments to
 * the holder. A summary covers the fragments as they stood after the merge that made it due (`dueNow`). So
 * the calls follow the fragments a record gathers, not how the documents interleave.
 */

export interface Written {
  job: SummaryJob;
  summary: Summary;
}

type Deps = Pick<IngestDeps, 'stores'>;

/**
 * Rounds of one document's summaries, at most (each round reads its records afresh). A round either applies
 * summaries, each covering at least twice the fragments of the one before, or looks again at records other
 * documents merged into meanwhile, so the loop ends long before this bound; it guards against a fault only.
 */
const MAX_ROUNDS = 64;

export function summaryJob(kind: SummaryJob['kind'], draft: Draft<{ id: string; description: string }>, lockIds: string[]): SummaryJob {
  const { key, subject, summary, fragments, newer } = draft;
  return { kind, id: draft.record.id, key, subject, summary, fragments: [...fragments], newer: [...newer], lockIds };
}

/** What a document's summaries made: the calls, the failures, the changes and the records they rewrote. */
export interface Summarised {
  /** The changes of every round, in order (a record summarised twice is listed twice). */
  changes: GraphChange[];
  /** The records the summaries rewrote, as last written. */
  entities: EntityRecord[];
  relationships: RelationshipRecord[];
  llm_calls: number;
  usage: TokenUsage;
  /** Summaries that failed and fell back to the joined fragments. */
  failures: string[];
}

/** Writes the summaries `outcome` found due and applies them with `apply`; `outcome` is left as it is. */
export async function summariseOutcome(
  deps: Pick<IngestDeps, 'stores' | 'ingest'>,
  scope: Scope,
  outcome: Pick<MergeOutcome, 'due'>,
  policy: SummaryPolicy,
  apply: SummaryApply,
): Promise<Summarised> {
  const made: Summarised = {
    changes: [],
    entities: [],
    relationships: [],
    llm_calls: 0,
    usage: { input_tokens: 0, output_tokens: 0 },
    failures: [],
  };
  const jobs = outcome.due;
  if (jobs.length === 0) return made;
  const { held } = deps.ingest;
  const workspace = `${scopeKey(scope)}\u0000`;
  const unique = [...new Map(jobs.map((job) => [job.key, job])).values()];
  for (const job of unique) {
    const holder = held.get(workspace + job.key);
    if (holder) holder.again = true;
  }
  const mine = unique.filter((job) => !held.has(workspace + job.key));
  const flags = new Map(mine.map((job) => [job.key, { again: false }]));
  for (const [key, flag] of flags) held.set(workspace + key, flag);
  const rounds = async () => {
    let pending = mine;
    for (let round = 0; round < MAX_ROUNDS && pending.length > 0; round++) {
      for (const job of pending) (flags.get(job.key) as { again: boolean }).again = false;
      const due = await dueNow(deps, scope, pending, policy, round === 0);
      const written = due.length ? await writeSummaries(deps, scope, due, policy, made) : [];
      const applied = written.length ? await apply(deps, scope, written, policy) : null;
      if (applied) {
        made.entities = latest(made.entities, applied.entities);
        made.relationships = latest(made.relationships, applied.relationships);
        made.changes.push(...applied.changes);
      }
      // Applied summaries may be due again (fragments merged while they were written); so may records others merged into.
      pending = mine.filter((job) => applied?.keys.has(job.key) || flags.get(job.key)?.again);
    }
  };
  try {
    // Across instances sharing the database, a record is held by its lease: a document of another instance waits
    // for it, then decides from the record as stored (as the holder's next round would have).
    if (mine.length) await withLeases(deps.stores.locks, scope, mine.map((job) => summaryLeaseKey(job.key)).sort(), rounds, { wait: true });
  } finally {
    for (const job of mine) held.delete(workspace + job.key);
  }
  return made;
}

/**
 * The outcome of a merge with its summaries: none left due, their calls, failures and changes added (each record's
 * change once), the records they rewrote to be embedded as last written.
 */
export function withSummaries(outcome: MergeOutcome, made: Summarised): MergeOutcome {
  const changes = [...outcome.changes];
  const listed = new Set(changes.map((c) => c.id));
  for (const change of made.changes) {
    if (listed.has(change.id)) continue;
    listed.add(change.id);
    changes.push(change);
  }
  return {
    ...outcome,
    due: [],
    changes,
    reembed: {
      entities: latest(outcome.reembed.entities, made.entities),
      relationships: latest(outcome.reembed.relationships, made.relationships),
    },
    llm_calls: outcome.llm_calls + made.llm_calls,
    usage: {
      input_tokens: outcome.usage.input_tokens + made.usage.input_tokens,
      output_tokens: outcome.usage.output_tokens + made.usage.output_tokens,
    },
    summaryFailures: [...outcome.summaryFailures, ...made.failures],
    summarised: made.changes.length,
  };
}

/** The lease key of a record held for summarising; entity ids are upper case, so it never names an entity's lock. */
const summaryLeaseKey = (key: string): string => `summary:${key}`;

/** The records of the jobs (by id; gone ones missing) and their merge states (by key), read at once. */
async function readJobs(deps: Deps, scope: Scope, jobs: SummaryJob[]) {
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
  const records = new Map<string, EntityRecord | RelationshipRecord>([...entities, ...relationships].map((r) => [r.id, r]));
  return { records, states };
}

/**
 * The jobs still due according to the stored records and merge states, with the parts a summary reads: the
 * fragments the description shows, or all those merged since the summary when it shows only the newest.
 * A summary covers the fragments as they stood after the merge at which it became due, not those other
 * documents merged before it is written: in the `first` round, those the job's own merge saw; in later
 * rounds (records that other documents merged into meanwhile, one fragment each as a rule), the fewest
 * with which it is due. The rest wait for the next round, as they would have waited for their own merge.
 */
async function dueNow(deps: Deps, scope: Scope, jobs: SummaryJob[], policy: SummaryPolicy, first: boolean): Promise<SummaryJob[]> {
  const { records, states } = await readJobs(deps, scope, jobs);
  const due: SummaryJob[] = [];
  /** Fragments (covered and newer) the merge of a first-round job saw. */
  const merged = new Map<string, number>();
  // Thousands of jobs after a large document: each reads its record's fragments (hashing them), a few at a time.
  const slicer = new TimeSlicer();
  for (const job of jobs) {
    await slicer.tick();
    const record = records.get(job.id);
    const state = states.get(job.key);
    // Gone, or changed by an analyst since its merge (the next merge rebuilds it).
    if (!record || !state || state.written !== recordFingerprint(record)) continue;
    const { summary, shown, newer } = currentParts(state.description ?? record.description, state);
    const fresh: SummaryJob = {
      ...job,
      subject: 'entity_type' in record ? { kind: 'entity', name: record.name } : job.subject,
      summary,
      fragments: shown,
      newer,
    };
    if (!summaryDue(fresh, policyFor(policy, job.kind))) continue;
    due.push(fresh);
    if (first) merged.set(job.key, (job.summary?.covered.length ?? 0) + job.newer.length);
  }
  const partial = due.filter((job) => job.fragments.length < job.newer.length);
  const complete = partial.length ? await completeParts(deps, scope, partial, records, states) : new Map<string, Parts>();
  return due.flatMap((job) => {
    const parts = job.fragments.length >= job.newer.length ? job : complete.get(job.key);
    if (!parts) return [];
    const seen = (merged.get(job.key) ?? 0) - (parts.summary?.covered.length ?? 0);
    const prefix = duePrefix(
      { ...job, summary: parts.summary, fragments: parts.fragments, newer: parts.newer },
      policyFor(policy, job.kind),
      seen,
    );
    return prefix ? [prefix] : [];
  });
}

async function writeSummaries(deps: Deps, scope: Scope, jobs: SummaryJob[], policy: SummaryPolicy, made: Summarised): Promise<Written[]> {
  const written: Written[] = [];
  const cached = { ...policy, llm: policy.llm && (policy.cache ? policy.cache.wrap(policy.llm, deps.stores.kv, scope) : policy.llm) };
  // Each job folds and counts its fragments before its call: they take their turns rather than one long stretch.
  await startInSlices(jobs, async (job) => {
    try {
      const result = await summarizeFragments(job.subject, job.summary ? [job.summary.text, ...job.fragments] : job.fragments, cached);
      made.llm_calls += result.llm_calls;
      made.usage.input_tokens += result.usage.input_tokens;
      made.usage.output_tokens += result.usage.output_tokens;
      // One line: descriptions are parts joined by newlines.
      const text = result.description.replace(/\s+/g, ' ').trim();
      if (text) written.push({ job, summary: { text, covered: [...(job.summary?.covered ?? []), ...job.fragments.map(fragmentKey)] } });
    } catch (err) {
      if (isAbortError(err) || policy.signal?.aborted) throw err;
      made.failures.push(`${job.key}: ${(err as Error).message}`);
    }
  });
  return written;
}

type Parts = Pick<SummaryJob, 'summary' | 'fragments' | 'newer'>;

/**
 * Every fragment the records stand for, from their sources' cached extractions (read once for all): the
 * description of a summarised record only shows the newest of those merged since its summary.
 */
async function completeParts(
  deps: Deps,
  scope: Scope,
  jobs: SummaryJob[],
  records: Map<string, EntityRecord | RelationshipRecord>,
  states: Map<string, RecordState>,
): Promise<Map<string, Parts>> {
  const out = new Map<string, Parts>();
  const wanted = jobs.flatMap((job) => records.get(job.id) ?? []);
  const sources = [...new Set(wanted.flatMap((r) => r.source_chunk_ids))];
  const { statements } = await sourceStatements(deps.stores.kv, scope, sources);
  const slicer = new TimeSlicer();
  for (const r of wanted) {
    await slicer.tick();
    if ('entity_type' in r) {
      const key = entityKey(r.id);
      out.set(
        key,
        rebuildEntity(r.id, await entityEvidence(statements, r.id, r.source_chunk_ids, slicer), r, states.get(key), r.updated_at),
      );
    } else {
      const key = relationshipKey(r.id);
      out.set(
        key,
        rebuildRelationship(r.id, await relationEvidence(statements, r.id, r.source_chunk_ids, slicer), r, states.get(key), r.updated_at),
      );
    }
  }
  return out;
}

/** What applying summaries changed: the records rewritten, their changes, and the keys of the summaries applied. */
export interface Applied {
  changes: GraphChange[];
  entities: EntityRecord[];
  relationships: RelationshipRecord[];
  keys: Set<string>;
}

/** Summaries written for one document, with its policy. */
export interface SummaryGroup {
  written: Written[];
  policy: SummaryPolicy;
}

/** Applies a document's summaries, under an entity lock over their records (`applySummaries` when held already). */
export type SummaryApply = (deps: Deps, scope: Scope, written: Written[], policy: SummaryPolicy) => Promise<Applied>;

/** Under the entity lock: each summary heads its record's description if it still applies. */
export const applySummaries: SummaryApply = async (deps, scope, written, policy) =>
  (await applySummaryGroups(deps, scope, [{ written, policy }]))[0];

/**
 * `applySummaries` for several documents at once, under one lock over all their records: one read and one write.
 * Their records are distinct (a record is summarised by one document at a time).
 */
export async function applySummaryGroups(deps: Deps, scope: Scope, groups: SummaryGroup[]): Promise<Applied[]> {
  const { graph, kv } = deps.stores;
  const all = groups.flatMap((g) => g.written);
  const { records, states } = await readJobs(
    deps,
    scope,
    all.map((w) => w.job),
  );
  const now = new Date().toISOString();
  const statesToWrite: Array<[string, RecordState]> = [];
  const slicer = new TimeSlicer();
  const applied: Applied[] = [];
  for (const { written, policy } of groups) {
    const out: Applied = { changes: [], entities: [], relationships: [], keys: new Set() };
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
      out.keys.add(job.key);
    }
    applied.push(out);
  }
  await graph.upsertEntities(
    scope,
    applied.flatMap((a) => a.entities),
  );
  await graph.upsertRelationships(
    scope,
    applied.flatMap((a) => a.relationships),
  );
  await writeStates(kv, scope, statesToWrite);
  return applied;
}

/** The records of `earlier` replaced by their later versions in `later`, plus those only in `later`. */
function latest<R extends { id: string }>(earlier: R[], later: R[]): R[] {
  const byId = new Map(earlier.map((r) => [r.id, r]));
  for (const r of later) byId.set(r.id, r);
  return [...byId.values()];
}
