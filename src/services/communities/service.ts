import type { CommunityRecord, CommunityRunSummary, ReportChargeSummary } from '../../domain/communities';
import { NotFoundError } from '../../domain/errors';
import type { EntityRecord, Page, Scope } from '../../domain/types';
import { buildCommunities } from '../../graph/communities/build';
import { withLeases } from '../../records/leases';
import type { GraphEvents } from '../../graph/events';
import { emptyTally, tallyingProviders, totalCalls } from '../../ingest/call-tally';
import type { ProviderRegistry } from '../../llm/ports';
import { withWorkspaceModels } from '../../llm/workspace-models';
import type { Logger } from '../../logger';
import type { CommunityQuery, Stores } from '../../store/ports';
import { type Cause, chargeCauses, PendingCauses } from './charges';

const STATUS_NAMESPACE = 'communities';
const LAST_RUN_KEY = 'last_run';
/** The lease of a workspace's recompute (lower case: never an entity's lock key). */
const RUN_LEASE_KEY = 'communities:run';
/** Members listed with one community. */
export const MEMBER_LIMIT = 500;

export type CommunityState = 'idle' | 'scheduled' | 'running';

export interface CommunityStatus {
  state: CommunityState;
  communities: number;
  /** Automatic recompute delay after a graph change, in ms (0: only on request). */
  refresh_ms: number;
  last_run: CommunityRunSummary | null;
}

export interface CommunityDetail {
  community: CommunityRecord;
  members: EntityRecord[];
  members_total: number;
}

export interface CommunityService {
  /** Schedules a recompute `refresh_ms` after the last change of the workspace (nothing when that is 0). */
  schedule(scope: Scope): void;
  /** Runs now (after the run in progress, if any) and returns its summary. */
  rebuild(scope: Scope): Promise<CommunityRunSummary>;
  /** Starts a run in the background (after the run in progress, if any). */
  trigger(scope: Scope): void;
  status(scope: Scope): Promise<CommunityStatus>;
  list(scope: Scope, query: CommunityQuery): Promise<Page<CommunityRecord>>;
  get(scope: Scope, id: string): Promise<CommunityDetail>;
  /**
   * Subscribes to graph changes: ingestion, deletion and edits schedule a recompute, and the content updates among
   * them are charged the report calls of the run that covers them (./charges.ts).
   */
  start(): void;
  close(): Promise<void>;
}

export interface CommunityServiceDeps {
  stores: Stores;
  providers: () => ProviderRegistry;
  events: GraphEvents;
  log: Logger;
  refreshMs: number;
}

interface WorkspaceRun {
  scope: Scope;
  timer: NodeJS.Timeout | null;
  running: Promise<CommunityRunSummary | null> | null;
  /** A change arrived while running: one more run follows. */
  again: boolean;
}

function keyOf(scope: Scope): string {
  return `${scope.tenantId ?? ''}/${scope.workspaceId}`;
}

/**
 * Community detection and reports as a background job per workspace: graph changes restart a debounce timer,
 * at most one run per workspace is in progress, and changes made during a run cause one more run after it.
 * Uploads never wait for it. The last run's summary is kept in the key-value store.
 */
export function createCommunityService(deps: CommunityServiceDeps): CommunityService {
  const runs = new Map<string, WorkspaceRun>();
  const causes = new PendingCauses();
  const aborts = new AbortController();
  let unsubscribe: (() => void) | null = null;
  let closed = false;

  const entry = (scope: Scope): WorkspaceRun => {
    const key = keyOf(scope);
    let run = runs.get(key);
    if (!run) runs.set(key, (run = { scope, timer: null, running: null, again: false }));
    return run;
  };

  /** The run's calls charged to the updates it covers; a charge that cannot be written is logged. */
  const charge = async (scope: Scope, covered: Cause[], tally: ReturnType<typeof emptyTally>) => {
    try {
      return await chargeCauses(deps, scope, covered, tally);
    } catch (err) {
      deps.log.warn(
        { workspace_id: scope.workspaceId, err: (err as Error).message },
        'community report calls not charged to their updates',
      );
      return [];
    }
  };

  const runOnce = async (scope: Scope): Promise<CommunityRunSummary> => {
    const startedAt = new Date().toISOString();
    // Under the run's lease: the updates noted so far are this run's to cover.
    const covered = causes.take(keyOf(scope));
    const tally = emptyTally();
    let charged: ReportChargeSummary[] | null = null;
    let built: CommunityRunSummary | null = null;
    try {
      const models = await deps.stores.accounts.workspaces.get(scope.workspaceId);
      built = await withWorkspaceModels(models, () => {
        const providers = tallyingProviders(deps.providers(), tally);
        return buildCommunities(
          { stores: deps.stores, llm: providers.llm(), embedder: providers.embedding(), signal: aborts.signal },
          scope,
        );
      });
      charged = await charge(scope, covered, tally);
      const summary = { ...built, llm_calls: totalCalls(tally), charged };
      await deps.stores.kv.set(scope, STATUS_NAMESPACE, LAST_RUN_KEY, summary);
      deps.log.info({ workspace_id: scope.workspaceId, ...summary }, 'communities rebuilt');
      return summary;
    } catch (err) {
      // The calls made are charged all the same; when the reports were not written, the next run covers these updates again.
      charged ??= await charge(scope, covered, tally);
      if (!built) causes.restore(keyOf(scope), covered);
      const message = err instanceof Error ? err.message : String(err);
      if (!closed) {
        deps.log.warn({ workspace_id: scope.workspaceId, err: message }, 'community rebuild failed');
        const failed: CommunityRunSummary = {
          started_at: startedAt,
          finished_at: new Date().toISOString(),
          entities: 0,
          relationships: 0,
          communities: await deps.stores.communities.count(scope).catch(() => 0),
          levels: 0,
          reports_generated: 0,
          reports_reused: 0,
          modularity: 0,
          duration_ms: Date.now() - Date.parse(startedAt),
          error: message.slice(0, 500),
          llm_calls: totalCalls(tally),
          charged,
        };
        await deps.stores.kv.set(scope, STATUS_NAMESPACE, LAST_RUN_KEY, failed).catch(() => undefined);
      }
      throw err;
    }
  };

  /**
   * One run at a time per workspace across the instances sharing the database, by a lease in the store. A run
   * requested by a caller waits for another instance's; a scheduled one is dropped instead (null): every instance
   * sees every change, so the instance running already runs again for changes made meanwhile.
   */
  const runLeased = async (scope: Scope, wait: boolean): Promise<CommunityRunSummary | null> => {
    const leased = await withLeases(deps.stores.locks, scope, [RUN_LEASE_KEY], () => runOnce(scope), { wait });
    if (!leased) {
      deps.log.debug({ workspace_id: scope.workspaceId }, 'community recompute left to the instance running one');
      // That instance's run covers the changes; left here, they would be charged a later run's calls.
      causes.take(keyOf(scope));
    }
    return leased?.value ?? null;
  };

  /** Chains a run after the one in progress; changes during it make one more. */
  const enqueue = (scope: Scope, scheduled = false): Promise<CommunityRunSummary | null> => {
    const run = entry(scope);
    if (run.timer) {
      clearTimeout(run.timer);
      run.timer = null;
    }
    const previous = run.running;
    const self: { promise: Promise<CommunityRunSummary | null> | null } = { promise: null };
    const next: Promise<CommunityRunSummary | null> = (async () => {
      if (previous) await previous.catch(() => undefined);
      try {
        return await runLeased(scope, !scheduled);
      } finally {
        if (run.running === self.promise) run.running = null;
        if (run.again && !closed) {
          run.again = false;
          void enqueue(scope, true).catch(() => undefined);
        } else if (!run.running && !run.timer) runs.delete(keyOf(scope));
      }
    })();
    self.promise = next;
    run.running = next;
    return next;
  };

  const service: CommunityService = {
    schedule(scope) {
      if (closed || deps.refreshMs <= 0) return;
      const run = entry(scope);
      if (run.running) {
        run.again = true;
        return;
      }
      if (run.timer) clearTimeout(run.timer);
      run.timer = setTimeout(() => {
        run.timer = null;
        void enqueue(scope, true).catch(() => undefined);
      }, deps.refreshMs);
      run.timer.unref();
    },
    async rebuild(scope) {
      return (await enqueue(scope)) as CommunityRunSummary;
    },
    trigger(scope) {
      void enqueue(scope).catch(() => undefined);
    },
    async status(scope) {
      const run = runs.get(keyOf(scope));
      const state: CommunityState = run?.running ? 'running' : run?.timer ? 'scheduled' : 'idle';
      const [communities, last] = await Promise.all([
        deps.stores.communities.count(scope),
        deps.stores.kv.get<CommunityRunSummary>(scope, STATUS_NAMESPACE, LAST_RUN_KEY),
      ]);
      return { state, communities, refresh_ms: deps.refreshMs, last_run: last };
    },
    list(scope, query) {
      return deps.stores.communities.list(scope, query);
    },
    async get(scope, id) {
      const community = await deps.stores.communities.get(scope, id);
      if (!community) throw new NotFoundError(`community '${id}' not found`);
      const members = await deps.stores.graph.getEntities(scope, community.member_ids.slice(0, MEMBER_LIMIT));
      return { community, members, members_total: community.member_ids.length };
    },
    start() {
      if (unsubscribe) return;
      unsubscribe = deps.events.subscribe((batch) => {
        causes.note(keyOf(batch.scope), batch);
        service.schedule(batch.scope);
      });
    },
    async close() {
      closed = true;
      unsubscribe?.();
      unsubscribe = null;
      for (const run of runs.values()) if (run.timer) clearTimeout(run.timer);
      aborts.abort();
      const running = [...runs.values()].flatMap((r) => (r.running ? [r.running.catch(() => undefined)] : []));
      await Promise.all(running);
      runs.clear();
      causes.clear();
    },
  };
  return service;
}
