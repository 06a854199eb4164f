import type { Middleware } from 'koa';
import { RateLimitedError, UnavailableError } from '../../domain/errors';
import { type FullShare, Shares } from '../../domain/shares';
import { onBehalfOf } from '../../domain/work-owner';
import type { AppConfig } from '../../config/types';
import type { AppContext, AppState } from '../context';
import { rateCategory } from './rate-limit';
import { WorkspaceTurns } from './turns';

const RETRY_AFTER_SECONDS = 1;

/** The classes of work admitted here: each has shares of its own. */
export type WorkClass = 'upload' | 'query' | 'read' | 'stream';

/** Health and readiness probes are never held back. */
const PROBES = /^\/(health|ready|live|metrics)(\/|$)/;

/** The class of a request, or null for work that is not capped here (writes other than uploads, probes, docs). */
export function workClassOf(method: string, path: string): WorkClass | null {
  const category = rateCategory(method, path);
  if (category === 'upload' || category === 'query') return category;
  const p = path.replace(/^\/api\/v1/, '');
  if (method === 'GET' && /^\/graph\/stream\/?$/.test(p)) return 'stream';
  if (category === 'graph') return 'read';
  if ((method === 'GET' || method === 'HEAD') && path.startsWith('/api/v1/') && !PROBES.test(p)) return 'read';
  return null;
}

/** Whose work a request is: its tenant ('' for none) and its workspace within the tenant. */
function ownerOf(ctx: AppContext): { tenant: string; workspace: string } {
  const principal = ctx.state.principal;
  const tenant = principal?.tenantId ?? (ctx.get('X-Tenant-ID').trim() || '');
  const workspace = principal?.workspaceId ?? (ctx.get('X-Workspace-ID').trim() || '');
  return { tenant, workspace: `${tenant}/${workspace}` };
}

function refusal(full: FullShare, what: string, cap: number, waited: string): Error {
  if (full === 'total') {
    return new UnavailableError(`the service holds ${cap} ${what} at once${waited}; retry shortly`, 'queue', {}, RETRY_AFTER_SECONDS);
  }
  return new RateLimitedError(`this ${full} has ${cap} ${what} in progress, the most it may${waited}; retry shortly`, RETRY_AFTER_SECONDS);
}

/**
 * Fair shares of the instance (docs/api.md §8.3). Every class of work has caps in all, per tenant and per
 * workspace; past a tenant's or workspace's share a request is refused with 429, past the instance's with 503,
 * both with `Retry-After`, so that overload costs a quick refusal instead of memory or another tenant's service.
 * - Uploads and queries (answers, chat, the compatibility APIs' chat) held at once are counted until their response
 *   is written out, streams included. Of a workspace's queries held, at most `queriesRunningPerWorkspace` run at
 *   once; one that has not had its turn within `queryWaitMs` is refused with 429.
 * - Graph stream subscribers are counted while they stay connected and refused at once past a share.
 * - Other reads (the graph, documents, tasks, …) run at most `reads` at once; one over a share waits for at most
 *   `readWaitMs` for a slot, handed out in arrival order to the first waiter whose shares have room.
 * The work of a request runs on behalf of its tenant, which the Neo4j session budget shares connections by.
 */
export function admission(limits: AppConfig['admission']): Middleware<AppState> {
  const shares = {
    upload: new Shares({ total: limits.uploads, perTenant: limits.uploadsPerTenant, perWorkspace: limits.uploadsPerWorkspace }, 0),
    query: new Shares({ total: limits.queries, perTenant: limits.queriesPerTenant, perWorkspace: limits.queriesPerWorkspace }, 0),
    read: new Shares(limits.reads, limits.readWaitMs),
    stream: new Shares(limits.graphStreams, 0),
  };
  const names = { upload: 'uploads', query: 'queries', read: 'reads', stream: 'graph stream subscribers' };
  const turns = new WorkspaceTurns(limits.queriesRunningPerWorkspace, limits.queryWaitMs);
  return async (ctx, next) => {
    const kind = workClassOf(ctx.method, ctx.path);
    const { tenant, workspace } = ownerOf(ctx);
    const run = () => onBehalfOf(tenant, next);
    if (!kind) return run();
    const closed = new AbortController();
    const releases: Array<(() => void) | null> = [];
    const releaseAll = () => {
      for (const release of releases.splice(0)) release?.();
    };
    ctx.res.once('close', () => {
      // Only a request still waiting for its turn listens; an answered one would only pay for the abort's error.
      if (!ctx.res.writableFinished) closed.abort();
      releaseAll();
    });
    try {
      const share = shares[kind];
      const admitted = await share.take(tenant, workspace, closed.signal);
      if (closed.signal.aborted) return 'release' in admitted ? admitted.release() : undefined;
      if ('refused' in admitted) {
        const full = admitted.refused;
        const cap = full === 'total' ? share.caps.total : full === 'tenant' ? share.caps.perTenant : share.caps.perWorkspace;
        throw refusal(full, names[kind], cap, share.waitMs > 0 ? ` and this one waited ${share.waitMs} ms without a slot` : '');
      }
      releases.push(admitted.release);
      if (kind === 'query') {
        const endTurn = await turns.take(workspace, closed.signal);
        releases.push(endTurn);
        if (closed.signal.aborted) return releaseAll();
        if (!endTurn) {
          throw new RateLimitedError(
            `this workspace's queries run ${limits.queriesRunningPerWorkspace} at a time and this one waited ` +
              `${turns.waitMs} ms without its turn; retry shortly`,
            RETRY_AFTER_SECONDS,
          );
        }
      }
      await run();
    } catch (err) {
      releaseAll();
      throw err;
    }
  };
}
