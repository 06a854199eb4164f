import Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import type { AppContext, AppState } from './context';
import type { Access, Guard } from './guard';
import { Problem, badRequest, notFound } from './problem';
import { fieldErrors, parseOrThrow } from './validate';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Defaults to application/json; SSE routes say text/event-stream (the schema is then that of one event's data). */
  contentType?: string;
  /** Other content types the same status answers with (a stream beside JSON), each with its schema. */
  alternatives?: Array<{ contentType: string; schema: z.ZodType; sentinel?: string }>;
  /** SSE: a data frame that is not JSON, such as OpenAI's `[DONE]`. */
  sentinel?: string;
  /**
   * SSE: what frames of plain text mean, for a stream that carries them instead of JSON events (a raw-text format
   * of the same stream); its JSON events are then the frames that open with `{"type":`.
   */
  rawText?: string;
}

export interface RouteSpec<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType> {
  method: HttpMethod;
  /** Koa-style path below the router prefix, e.g. `/documents/:id`. */
  path: string;
  summary: string;
  tag: string;
  description?: string;
  /** JSON body: a non-JSON request is refused with 400 before validation. */
  body?: B;
  /** The body may be left out altogether (no Content-Type, no content): the handler then gets `undefined`. */
  bodyOptional?: boolean;
  /** Multipart form: documented with this schema, parsed by the handler. */
  multipart?: z.ZodType;
  query?: Q;
  params?: P;
  responses: Record<number, ResponseSpec>;
  /** Route-specific middleware run before validation (e.g. a multipart parser), after the guard. */
  before?: Middleware<AppState>[];
  /** Who may call it (docs/api.md §5); by default `viewer` for GET and `editor` for other methods. */
  access?: Access;
  /** Whether it acts in the request's workspace (X-Tenant-ID, X-Workspace-ID); by default every protected route does. */
  workspace?: boolean;
}

/** The access a route ends up with, defaults applied. */
export function accessOf(spec: Pick<RouteSpec<z.ZodType, z.ZodType, z.ZodType>, 'access' | 'method' | 'workspace'>): {
  access: Access;
  workspace: boolean;
} {
  const access = spec.access ?? (spec.method === 'get' ? 'viewer' : 'editor');
  const open = access === 'public' || access === 'credentials';
  return { access, workspace: !open && (spec.workspace ?? true) };
}

export interface RouteInput<B, Q, P> {
  body: B;
  query: Q;
  params: P;
}

export interface RegisteredRoute {
  prefix: string;
  spec: RouteSpec<z.ZodType, z.ZodType, z.ZodType>;
}

const empty = z.object({});

/**
 * Path parameters. One that must be a UUID and is not names nothing that can exist: 404 (with what was expected),
 * as for an unknown id; other invalid parameters are 422.
 */
function parsePathParams(schema: z.ZodType, value: unknown): unknown {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const uuidOnly = result.error.issues.every((i) => i.code === 'invalid_format' && (i as { format?: string }).format === 'uuid');
  if (uuidOnly)
    throw notFound(
      fieldErrors(result.error)
        .map((e) => `${e.field}: ${e.message}`)
        .join('; '),
    );
  return parseOrThrow(schema, value);
}

/**
 * A router that validates with zod and records every route for the OpenAPI document,
 * so the schemas that validate requests are the ones the docs show.
 */
export class Api {
  readonly router: Router<AppState>;
  /** Full paths without parameters, with their methods. */
  private readonly staticPaths = new Map<string, string[]>();

  constructor(
    readonly prefix: string,
    private readonly registry: RegisteredRoute[],
    private readonly guard: Guard,
  ) {
    // Paths are case-sensitive (RFC 3986 §6.2.2.1): `/API/V1/documents` is not the API.
    this.router = new Router<AppState>({ prefix: prefix || undefined, sensitive: true });
  }

  route<B extends z.ZodType = typeof empty, Q extends z.ZodType = typeof empty, P extends z.ZodType = typeof empty>(
    spec: RouteSpec<B, Q, P>,
    handler: (ctx: AppContext, input: RouteInput<z.output<B>, z.output<Q>, z.output<P>>) => Promise<void> | void,
  ): void {
    this.registry.push({ prefix: this.prefix, spec: spec as unknown as RouteSpec<z.ZodType, z.ZodType, z.ZodType> });
    const full = this.prefix + spec.path;
    const method = spec.method.toUpperCase();
    const isStatic = !/[:*]/.test(spec.path);
    if (isStatic) this.staticPaths.set(full, [...(this.staticPaths.get(full) ?? []), method]);
    const chain: Middleware<AppState>[] = [this.guard(accessOf(spec))];
    // A fixed path shadows the parametrised ones it also matches (`/documents/scan` is not document 'scan').
    if (!isStatic) {
      chain.unshift(async (ctx, next) => {
        if (this.staticPaths.has(ctx.path)) this.refuseMethod(ctx);
        else await next();
      });
    }
    chain.push(...(spec.before ?? []));
    chain.push(async (ctx) => {
      const c = ctx as AppContext;
      const params = parsePathParams(spec.params ?? empty, c.params) as z.output<P>;
      const query = parseOrThrow(spec.query ?? empty, c.query) as z.output<Q>;
      let body = undefined as z.output<B>;
      const absent = spec.bodyOptional === true && !c.request.length && !c.get('Content-Type');
      if (spec.body && !absent) {
        if (!c.is('application/json')) throw badRequest('expects Content-Type: application/json');
        body = parseOrThrow(spec.body, (c.request as { body?: unknown }).body) as z.output<B>;
      }
      await handler(c, { body, query, params });
    });
    this.router.register(spec.path, [method], chain);
  }

  /** The methods served on a path: those of its fixed routes if it has any, else of the routes matching it. */
  allowedOn(path: string): string[] {
    const methods = new Set(this.staticPaths.get(path) ?? this.router.match(path, 'GET').path.flatMap((layer) => layer.methods));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods];
  }

  /** 405 with Allow (OPTIONS: 204 with Allow) for a path served by other methods. */
  private refuseMethod(ctx: AppContext | Parameters<Middleware<AppState>>[0]): void {
    const allow = this.allowedOn(ctx.path);
    ctx.set('Allow', [...allow, 'OPTIONS'].join(', '));
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    throw new Problem(405, `method ${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow.join(', ')}`);
  }

  /** The routes, plus 405 with an Allow header for a known path and the wrong method. */
  middleware(): Middleware<AppState> {
    const routes = this.router.routes() as unknown as Middleware<AppState>;
    return (ctx, next) =>
      routes(ctx, async () => {
        if (this.allowedOn(ctx.path).length) this.refuseMethod(ctx);
        else await next();
      });
  }
}
