import { UnavailableError } from '../../domain/errors';
import { Shares } from '../../domain/shares';
import { isBackground } from '../../domain/turns';
import { currentOwner } from '../../domain/work-owner';

/** How the connections of the Neo4j pool are shared (docs/architecture.md, "Fair shares"). */
export interface SessionBudgetSettings {
  /** Sessions open at once for requests (and all work not in the background). */
  requests: number;
  /** Of those, at most this many for one tenant. */
  requestsPerTenant: number;
  /** Sessions open at once for background work (ingestion). */
  background: number;
  /** How long a unit of work waits for a session of its share before it is refused (503). */
  waitMs: number;
}

const RETRY_AFTER_SECONDS = 1;

/**
 * A budget of sessions in front of the driver's pool: requests and background work (ingestion) draw on shares of
 * their own, and one tenant's requests on at most its part of the requests' share, so no class of work and no
 * tenant can take every connection. A unit of work that does not get a session of its share in time is an outage
 * for the caller (503 with Retry-After; a running document goes back to the queue).
 */
export class SessionBudget {
  private readonly requests: Shares;
  private readonly background: Shares;

  constructor(readonly settings: SessionBudgetSettings) {
    this.requests = new Shares({ total: settings.requests, perTenant: settings.requestsPerTenant, perWorkspace: 0 }, settings.waitMs);
    this.background = new Shares({ total: settings.background, perTenant: 0, perWorkspace: 0 }, settings.waitMs);
  }

  /** Sessions held now: by requests in all, by one tenant's requests, and by background work. */
  inUse(tenant?: string): { requests: number; background: number } {
    return { requests: this.requests.running(tenant), background: this.background.running() };
  }

  /** Runs `work` holding one session slot of the current work's share. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const background = isBackground();
    const shares = background ? this.background : this.requests;
    const admitted = await shares.take(background ? '' : (currentOwner() ?? ''), '');
    if ('refused' in admitted) {
      const whose =
        admitted.refused === 'tenant' ? "this tenant's share of" : background ? 'the background share of' : "the requests' share of";
      throw new UnavailableError(
        `the graph database (Neo4j) had no session free in ${whose} its connections within ${this.settings.waitMs} ms; retry shortly`,
        'neo4j',
        {},
        RETRY_AFTER_SECONDS,
      );
    }
    try {
      return await work();
    } finally {
      admitted.release();
    }
  }
}

/** The default split of a pool of `poolSize` connections: three fifths for requests, half of those per tenant. */
export function defaultBudget(poolSize: number, waitMs: number, overrides: Partial<SessionBudgetSettings> = {}): SessionBudgetSettings {
  const requests = overrides.requests ?? Math.max(1, Math.ceil((poolSize * 3) / 5));
  return {
    requests,
    requestsPerTenant: overrides.requestsPerTenant ?? Math.max(1, Math.ceil(requests / 2)),
    background: overrides.background ?? Math.max(1, poolSize - requests),
    waitMs,
  };
}
