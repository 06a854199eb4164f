import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Middleware } from 'koa';
import type { Principal } from '../domain/accounts';
import { UnauthenticatedError } from '../domain/errors';
import type { AppContext, AppState } from '../http/context';
import { Problem } from '../http/problem';
import type { Runtime } from '../services/runtime';
import type { Caller } from './context';

export const MCP_PATH = '/mcp';
const METHODS = ['GET', 'POST', 'DELETE'];
/** A session unused this long is closed; its client initialises a new one (MCP answers it 404). */
const IDLE_MS = 30 * 60_000;
/** Sessions kept per instance; past it the least recently used one is closed. */
const MAX_SESSIONS = 1000;

interface Session {
  server: Server;
  transport: StreamableHTTPServerTransport;
  /** The credential that opened it: only the same credential may use it. */
  owner: string;
  lastSeen: number;
}

const ownerOf = (p: Principal) => `${p.kind}:${p.id}`;

/**
 * The MCP SDK and our server on it, loaded with the first MCP request: about 13 MB of an instance's memory (the SDK,
 * its schema validator and HTTP adapter) that an instance no MCP client talks to never spends.
 */
const loadMcp = (() => {
  let loading: ReturnType<typeof load> | null = null;
  async function load() {
    const [{ StreamableHTTPServerTransport }, { isInitializeRequest }, { createMcpServer }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/types.js'),
      import('./server'),
    ]);
    return { StreamableHTTPServerTransport, isInitializeRequest, createMcpServer };
  }
  return () => (loading ??= load());
})();

function header(ctx: AppContext, name: string): string | null {
  const value = ctx.get(name).trim();
  return value || null;
}

/**
 * The Streamable HTTP MCP endpoint (docs/api.md, MCP). Each request is authenticated as a REST request is (X-API-Key
 * or Authorization: Bearer; 401 problem details without them); a session belongs to the credential that opened it.
 * The workspace comes from a tool's `workspace` argument, else X-Workspace-ID (id or slug), else the credential's.
 */
export function mcpEndpoint(rt: Runtime): Middleware<AppState> {
  const sessions = new Map<string, Session>();

  const sweep = setInterval(() => {
    const cutoff = Date.now() - IDLE_MS;
    for (const s of sessions.values()) if (s.lastSeen < cutoff) void s.server.close();
  }, 60_000);
  sweep.unref();

  async function open(ctx: AppContext, owner: string): Promise<Session> {
    if (sessions.size >= MAX_SESSIONS) {
      const oldest = [...sessions.values()].sort((a, b) => a.lastSeen - b.lastSeen)[0];
      await oldest.server.close();
    }
    const { createMcpServer, StreamableHTTPServerTransport } = await loadMcp();
    const server = createMcpServer(rt);
    const session: Session = {
      server,
      owner,
      lastSeen: Date.now(),
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => void sessions.set(id, session),
      }),
    };
    // Shutdown closes the session (and its open event streams) instead of waiting for them.
    const forget = ctx.state.drain?.track({ shutdown: () => void server.close() });
    session.transport.onclose = () => {
      if (session.transport.sessionId) sessions.delete(session.transport.sessionId);
      forget?.();
    };
    await server.connect(session.transport);
    return session;
  }

  return async (ctx, next) => {
    if (ctx.path !== MCP_PATH) return next();
    const c = ctx as AppContext;
    if (!METHODS.includes(ctx.method)) {
      ctx.set('Allow', METHODS.join(', '));
      throw new Problem(405, `method ${ctx.method} is not allowed on ${MCP_PATH}; allowed: ${METHODS.join(', ')}`);
    }
    if (c.state.credentialError) throw new UnauthenticatedError(c.state.credentialError.message);
    const principal = c.state.principal ?? (rt.auth.open ? rt.auth.openPrincipal : null);
    if (!principal) throw new UnauthenticatedError('credentials are required: send X-API-Key or Authorization: Bearer');
    const owner = ownerOf(principal);
    const sessionId = header(c, 'mcp-session-id');
    const body = (c.request as { body?: unknown }).body;
    let session: Session | undefined;
    if (sessionId) {
      session = sessions.get(sessionId);
      if (!session || session.owner !== owner)
        throw new Problem(404, `MCP session '${sessionId.slice(0, 64)}' is not open; initialise a new one`);
    } else if (ctx.method === 'POST' && (await loadMcp()).isInitializeRequest(body)) {
      session = await open(c, owner);
    } else {
      throw new Problem(400, 'send an initialize request first, then the Mcp-Session-Id header it answers with');
    }
    session.lastSeen = Date.now();
    const caller: Caller = {
      principal,
      tenantId: header(c, 'x-tenant-id'),
      workspace: header(c, 'x-workspace-id'),
      requestId: c.state.requestId,
      rateLimit: c.state.countOperation,
    };
    const auth: AuthInfo = { token: '', clientId: owner, scopes: [principal.role], extra: { caller } };
    (ctx.req as IncomingMessage & { auth?: AuthInfo }).auth = auth;
    ctx.respond = false;
    await session.transport.handleRequest(ctx.req as IncomingMessage & { auth?: AuthInfo }, ctx.res, body);
  };
}
