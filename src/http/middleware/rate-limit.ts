import type { Middleware } from 'koa';
import ratelimit from 'koa-ratelimit';
import type Redis from 'ioredis';
import type { AppConfig } from '../../config/types';
import type { AppState, RateCategory } from '../context';
import { Problem } from '../problem';

export type { RateCategory };

/** Which limit a request counts against (docs/api.md §8.2); health and docs are unlimited. */
export function rateCategory(method: string, path: string): RateCategory | null {
  const p = path.replace(/^\/api\/v1/, '');
  if (method === 'POST' && /^\/documents(\/upload(\/batch)?|\/scan)?\/?$/.test(p)) return 'upload';
  if (method === 'POST' && /^\/(query|chat)(\/|$)/.test(p)) return 'query';
  // The compatibility APIs' answers are queries too (docs/api.md §4.12).
  if (method === 'POST' && /^\/(api\/(chat|generate)|v1\/chat\/completions)\/?$/.test(p)) return 'query';
  if (/^\/graph(\/|$)/.test(p)) return 'graph';
  return null;
}

/**
 * Per-category limits keyed by API key or client address. Counters live in Redis when configured
 * so that several instances share them, else in process memory.
 */
export function rateLimiter(limits: () => AppConfig['rateLimits'], redis: Redis | null): Middleware<AppState> {
  const memory = new Map();
  let limiters = new Map<RateCategory, Middleware<AppState>>();
  let builtFor = '';
  // The limits may change while the service runs (PATCH /settings publishes new ones): rebuilt on change.
  const current = () => {
    const now = limits();
    const key = JSON.stringify(now);
    if (key !== builtFor) {
      limiters = buildLimiters(now, redis, memory);
      builtFor = key;
    }
    return limiters;
  };
  /** Counts one request of `category` for the caller of `ctx`, then runs `next`; 429 past the limit. */
  const limit = async (ctx: Ctx, category: RateCategory, next: () => Promise<void>) => {
    const limiter = current().get(category);
    // Credentials that could not be checked (their store is down) count against no one: the guard answers 503.
    if (!limiter || ctx.state.credentialLookupFailure) return next();
    let failedDownstream = false;
    const downstream = async () => {
      try {
        await next();
      } catch (err) {
        failedDownstream = true;
        throw err;
      }
    };
    try {
      await limiter(ctx, downstream);
    } catch (err) {
      // The limiter's own refusal carries a status; anything else from the limiter is its counter store failing.
      if (redis && !failedDownstream && typeof (err as { status?: unknown }).status !== 'number') {
        throw new Problem(503, 'the rate-limit store (Redis) is unavailable; retry shortly');
      }
      const headers = (err as { headers?: Record<string, string | number> }).headers;
      if (headers?.[RESET] !== undefined) headers[RESET] = wholeSeconds(headers[RESET]);
      throw err;
    } finally {
      const reset = ctx.response.get(RESET);
      if (reset) ctx.set(RESET, String(wholeSeconds(reset)));
    }
  };
  return async (ctx, next) => {
    // Requests that carry several operations (MCP tool calls) count each against its own category.
    ctx.state.countOperation = (category) => limit(operationContext(ctx), category, async () => undefined);
    const category = rateCategory(ctx.method, ctx.path);
    if (!category) return next();
    return limit(ctx, category, next);
  };
}

type Ctx = Parameters<Middleware<AppState>>[0];

/**
 * A stand-in context for counting one operation of a request whose response another program writes (the MCP
 * transport): the limiter reads the caller from it, and its headers and refusal body go nowhere; a refusal is thrown.
 */
function operationContext(ctx: Ctx): Ctx {
  const refuse = (status: number, message: string, props: object) => {
    throw Object.assign(new Error(message), { status, expose: true }, props);
  };
  return { state: { ...ctx.state }, ip: ctx.ip, set: () => undefined, response: { get: () => '' }, throw: refuse } as unknown as Ctx;
}

function buildLimiters(
  limits: AppConfig['rateLimits'],
  redis: Redis | null,
  memory: Map<unknown, unknown>,
): Map<RateCategory, Middleware<AppState>> {
  const limiters = new Map<RateCategory, Middleware<AppState>>();
  for (const category of ['upload', 'query', 'graph'] as const) {
    const max = limits[category];
    if (max <= 0) continue;
    const store = redis ? { driver: 'redis' as const, db: redis } : { driver: 'memory' as const, db: memory };
    limiters.set(
      category,
      ratelimit({
        ...store,
        duration: limits.windowMs,
        max,
        id: (ctx) => `${category}:${principalOf(ctx as never)}`,
        headers: { remaining: 'X-RateLimit-Remaining', reset: 'X-RateLimit-Reset', total: 'X-RateLimit-Limit' },
        errorMessage: `rate limit of ${max} ${category} requests per ${Math.round(limits.windowMs / 1000)} s exceeded`,
        throw: true,
      }) as unknown as Middleware<AppState>,
    );
  }
  return limiters;
}

const RESET = 'X-RateLimit-Reset';

/** The memory driver reports a fractional epoch; clients expect whole seconds (rounded up: never too early). */
function wholeSeconds(value: string | number): number {
  return Math.ceil(Number(value));
}

/**
 * The caller a limit applies to: the authenticated identity (an API key or a user) when the credentials were
 * valid, else the client address, so that made-up credentials never open a fresh bucket.
 */
function principalOf(ctx: { state: AppState; ip: string }): string {
  return ctx.state.principal && ctx.state.principal.kind !== 'open' ? ctx.state.principal.id : `ip:${ctx.ip}`;
}
