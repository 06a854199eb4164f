import type { Middleware } from 'koa';
import { RateLimitedError, UnavailableError } from '../../domain/errors';
import type { AppConfig } from '../../config/types';
import type { AppState } from '../context';
import { rateCategory } from './rate-limit';
import { WorkspaceTurns } from './turns';

const RETRY_AFTER_SECONDS = 1;

type Kind = 'upload' | 'query';

/** In-flight counts of one kind of work: per workspace and in all. */
class Gauge {
  total = 0;
  readonly byWorkspace = new Map<string, number>();

  enter(workspace: string): () => void {
    this.total += 1;
    this.byWorkspace.set(workspace, (this.byWorkspace.get(workspace) ?? 0) + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.total -= 1;
      const n = (this.byWorkspace.get(workspace) ?? 1) - 1;
      if (n === 0) this.byWorkspace.delete(workspace);
      else this.byWorkspace.set(workspace, n);
    };
  }
}

/**
 * Bounded queues (docs/api.md §8.3): uploads and queries (answers, chat, the compatibility APIs' chat) held at
 * once by this instance are capped per workspace and in all. Past a workspace's cap a request is refused with 429,
 * past the global cap with 503, both with `Retry-After`, so that overload costs a quick refusal instead of memory.
 * A request counts until its response is written out, streams included. Of a workspace's queries held, at most
 * `queriesRunningPerWorkspace` run at once and the others wait their turn; one that has not had it within
 * `queryWaitMs` is refused with 429 and `Retry-After`, so a client sees a refusal it can act on instead of a timeout,
 * and the stores (Neo4j shares the machine's cores) are not handed more concurrent work than they can serve.
 */
export function admission(limits: AppConfig['admission']): Middleware<AppState> {
  const gauges: Record<Kind, Gauge> = { upload: new Gauge(), query: new Gauge() };
  const caps: Record<Kind, { perWorkspace: number; total: number }> = {
    upload: { perWorkspace: limits.uploadsPerWorkspace, total: limits.uploads },
    query: { perWorkspace: limits.queriesPerWorkspace, total: limits.queries },
  };
  const turns = new WorkspaceTurns(limits.queriesRunningPerWorkspace, limits.queryWaitMs);
  return async (ctx, next) => {
    const category = rateCategory(ctx.method, ctx.path);
    if (category !== 'upload' && category !== 'query') return next();
    const gauge = gauges[category];
    const cap = caps[category];
    const workspace = ctx.get('X-Workspace-ID').trim() || '';
    const what = category === 'upload' ? 'uploads' : 'queries';
    if (cap.total > 0 && gauge.total >= cap.total) {
      throw new UnavailableError(`the service holds ${cap.total} ${what} at once; retry shortly`, 'queue', {}, RETRY_AFTER_SECONDS);
    }
    if (cap.perWorkspace > 0 && (gauge.byWorkspace.get(workspace) ?? 0) >= cap.perWorkspace) {
      throw new RateLimitedError(
        `this workspace has ${cap.perWorkspace} ${what} in progress, the most it may; retry shortly`,
        RETRY_AFTER_SECONDS,
      );
    }
    const leave = gauge.enter(workspace);
    const closed = new AbortController();
    let endTurn: (() => void) | null = null;
    ctx.res.once('close', () => {
      // Only a request still waiting for its turn listens; an answered one would only pay for the abort's error.
      if (!ctx.res.writableFinished) closed.abort();
      leave();
      endTurn?.();
    });
    try {
      if (category === 'query') {
        endTurn = await turns.take(workspace, closed.signal);
        if (closed.signal.aborted) return endTurn?.();
        if (!endTurn) {
          throw new RateLimitedError(
            `this workspace's queries run ${limits.queriesRunningPerWorkspace} at a time and this one waited ` +
              `${turns.waitMs} ms without its turn; retry shortly`,
            RETRY_AFTER_SECONDS,
          );
        }
      }
      await next();
    } catch (err) {
      leave();
      endTurn?.();
      throw err;
    }
  };
}
