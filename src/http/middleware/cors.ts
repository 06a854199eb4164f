import cors from '@koa/cors';
import type { Middleware } from 'koa';
import type { AppState } from '../context';

/**
 * CORS for an allow-list of browser origins (SERVICE_CORS_ORIGINS); off when the list is empty, so that no
 * cross-origin page can read an answer. A request from another origin gets no CORS headers.
 */
export function corsAllowList(origins: readonly string[]): Middleware<AppState> {
  if (origins.length === 0) return (_ctx, next) => next();
  const allowed = new Set(origins);
  return cors({
    origin: (ctx) => (allowed.has(ctx.get('Origin')) ? ctx.get('Origin') : ''),
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    // The MCP endpoint's session and protocol headers, for MCP clients that run in a browser.
    allowHeaders: [
      'Authorization',
      'Content-Type',
      'X-API-Key',
      'X-Workspace-ID',
      'X-Tenant-ID',
      'X-Request-ID',
      'Mcp-Session-Id',
      'Mcp-Protocol-Version',
      'Last-Event-ID',
    ],
    exposeHeaders: [
      'X-Request-ID',
      'Retry-After',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Location',
      'Mcp-Session-Id',
      'WWW-Authenticate',
    ],
    keepHeadersOnError: true,
    maxAge: 600,
  }) as unknown as Middleware<AppState>;
}
