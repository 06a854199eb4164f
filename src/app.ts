import Koa from 'koa';
import { Api, type RegisteredRoute } from './http/api';
import { jsonBody } from './http/body';
import { compatErrors } from './http/compat-errors';
import { compatFlavourOf, compatWorkspaceOf } from './http/compat-paths';
import { Drain } from './http/drain';
import type { AppState } from './http/context';
import { accessLog } from './http/middleware/access-log';
import { admission } from './http/middleware/admission';
import { consoleFiles } from './http/middleware/console';
import { jsonResponses } from './http/middleware/json-responses';
import { problems } from './http/middleware/problems';
import { rateLimiter } from './http/middleware/rate-limit';
import { requestId } from './http/middleware/request-id';
import { secureHeaders } from './http/middleware/secure-headers';
import { corsAllowList } from './http/middleware/cors';
import { answerClientErrors } from './http/client-errors';
import { credentials } from './http/middleware/authenticate';
import { createGuard } from './http/guard';
import { buildOpenApi } from './http/openapi';
import { mcpEndpoint } from './mcp/http';
import { registerRoutes } from './routes';
import type { Runtime } from './runtime';

export const API_PREFIX = '/api/v1';

/**
 * The HTTP application. Middleware order (docs/api.md §5.3): request id and problem mapping wrap everything,
 * then credentials -> rate limiter (per caller) -> route guard (401, 403, tenant and workspace context) -> handler -> JSON or SSE.
 */
export function createApp(rt: Runtime): { app: Koa<AppState>; openapi: Record<string, unknown>; routes: RegisteredRoute[]; drain: Drain } {
  const app = new Koa<AppState>();
  app.proxy = rt.config.trustProxy;
  app.silent = true;
  const registry: RegisteredRoute[] = [];
  const guard = createGuard(rt.auth, rt.tenancy, compatWorkspaceOf);
  const root = new Api('', registry, guard);
  const v1 = new Api(API_PREFIX, registry, guard);
  registerRoutes({ root, v1 }, rt);
  const openapi = buildOpenApi(registry, rt.config.version);
  const openapiJson = JSON.stringify(openapi);

  // Requests refused before the app sees them (headers too large) still get a problem body.
  const listen = app.listen.bind(app) as (...args: unknown[]) => ReturnType<typeof app.listen>;
  app.listen = ((...args: unknown[]) => {
    const server = listen(...args);
    answerClientErrors(server, rt.config.errorTypeBase);
    return server;
  }) as typeof app.listen;
  // Spans of the work a request does go to this runtime's trace backend.
  app.use((_ctx, next) => rt.traced(next));
  app.use(requestId());
  app.use(secureHeaders());
  app.use(corsAllowList(rt.config.corsOrigins));
  app.use(problems(rt.log, rt.config.errorTypeBase));
  app.use(jsonResponses());
  // The Ollama- and OpenAI-compatible paths answer errors in their own shapes (docs/api.md §4.12).
  app.use(compatErrors(rt.log));
  app.use(accessLog(rt.log));
  // Shutdown (src/main.ts): counts requests in flight, refuses new ones while draining, ends open event streams.
  const drain = new Drain();
  app.use(drain.middleware());
  // The web console is public static content: served before rate limits and authentication, never on API paths.
  app.use(consoleFiles(rt.config.consoleDir));
  app.use(credentials(rt.auth, rt.log));
  app.use(rateLimiter(() => rt.config.rateLimits, rt.redis));
  app.use(admission(rt.config.admission));
  app.use(jsonBody(undefined, (path) => compatFlavourOf(path) !== null));
  app.use(async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/api-docs/openapi.json') {
      ctx.type = 'application/json';
      ctx.body = openapiJson;
      return;
    }
    await next();
  });
  app.use(swaggerUi());
  // The MCP endpoint (src/mcp): tools, resources and prompts over the same services as the routes.
  app.use(mcpEndpoint(rt));
  app.use(root.middleware());
  app.use(v1.middleware());
  return { app, openapi, routes: registry, drain };
}

const SWAGGER_UI = '/swagger-ui';

/**
 * The interactive API docs at /swagger-ui. koa2-swagger-ui (and the template engine it compiles its page with,
 * about 7 MB) is loaded on the first request for them, not by every process that never shows them.
 */
function swaggerUi(): Koa.Middleware<AppState> {
  let serve: Koa.Middleware<AppState> | null = null;
  return (ctx, next) => {
    if (!ctx.path.startsWith(SWAGGER_UI)) return next();
    if (!serve) {
      /* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/consistent-type-imports -- see above */
      const { koaSwagger } = require('koa2-swagger-ui') as typeof import('koa2-swagger-ui');
      /* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/consistent-type-imports */
      serve = koaSwagger({
        routePrefix: SWAGGER_UI,
        title: 'kgrag API',
        swaggerOptions: { url: '/api-docs/openapi.json' },
      }) as unknown as Koa.Middleware<AppState>;
    }
    return serve(ctx, next);
  };
}
