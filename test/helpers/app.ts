import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { createApp } from '../../src/app';
import type { RegisteredRoute } from '../../src/http/api';
import type { Drain } from '../../src/http/drain';
import { loadConfig } from '../../src/config/load';
import type { AppConfig } from '../../src/config/types';
import { createLogger } from '../../src/logger';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime';
import type { Principal, Role } from '../../src/domain/accounts';
import { type TestRequestInit, workspaceRequest } from './request';

const PLAIN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const TEST_MASTER_KEY = 'test-master-key-0123456789abcdef';
const MASTER: Principal = { kind: 'master', id: 'master', tenantId: null, role: 'admin', userId: null, workspaceId: null };

export interface TestApp {
  url: string;
  rt: Runtime;
  /** The configuration in force: the environment's with the runtime settings applied (`rt.config`). */
  readonly config: AppConfig;
  /** A fresh workspace (created in the default tenant), so test files never see each other's data. */
  workspace: string;
  /** The route table of the app (what the router serves and the OpenAPI document lists). */
  routes: RegisteredRoute[];
  /** The master key the test app runs with. */
  masterKey: string;
  /** Another fresh workspace of the default tenant. */
  createWorkspace(): Promise<string>;
  /**
   * The workspace a test calls by a name of its own (`{ workspace: 'other' }` in `request`), created on first use;
   * names that are not plain words (such as 'bad workspace!') and UUIDs are sent as they are.
   */
  workspaceNamed(name: string): Promise<string>;
  /** A new API key (made with the master key): of the default tenant and editor role unless told otherwise. */
  createApiKey(options?: { role?: Role; tenantId?: string; workspaceId?: string }): Promise<string>;
  /** The headers every request of this test app carries (workspace, and credentials once authentication applies); for clients built outside `request`. */
  headers: Record<string, string>;
  /** The app's shutdown drain (src/http/drain.ts). */
  drain: Drain;
  /** fetch against the app with the test workspace header set. */
  request(path: string, init?: TestRequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Boots the real app on 127.0.0.1 port 0 with the given environment on top of the test defaults.
 * Storage follows TEST_NEO4J_URI (persistent mode) when the test runner provides one.
 */
export async function startTestApp(env: Record<string, string> = {}, options: RuntimeOptions & { start?: boolean } = {}): Promise<TestApp> {
  const base: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    RUST_LOG: process.env.TEST_LOG_LEVEL ?? 'silent',
    SERVICE_MODELS_CONFIG: `${__dirname}/../../models.toml`,
    // Tests run on the offline provider, chosen explicitly (without it the local runtime is the default).
    SERVICE_LLM_PROVIDER: 'mock',
    SERVICE_EMBEDDING_PROVIDER: 'mock',
    SERVICE_RATE_LIMIT_UPLOAD: '0',
    SERVICE_RATE_LIMIT_QUERY: '0',
    SERVICE_RATE_LIMIT_GRAPH: '0',
    WORKER_THREADS: '2',
    // Communities are rebuilt on request in tests (a suite that wants the automatic recompute sets it).
    SERVICE_COMMUNITY_REFRESH_MS: '0',
    SERVICE_MASTER_API_KEY: TEST_MASTER_KEY,
    // One instance per app, as one per process in production: the apps of a jest process share its pid, and an
    // instance that starts queues again the tasks its own instance id left running.
    SERVICE_INSTANCE_ID: `test-${randomUUID().slice(0, 8)}`,
  };
  if (process.env.TEST_NEO4J_URI) base.NEO4J_URI = process.env.TEST_NEO4J_URI;
  if (process.env.TEST_QDRANT_URL) base.QDRANT_URL = process.env.TEST_QDRANT_URL;
  const config = loadConfig({ ...base, ...env }, { cwd: `${__dirname}/../..`, homeDir: '/nonexistent' });
  const { start, ...runtimeOptions } = options;
  const rt = await createRuntime(config, createLogger(config.logLevel), runtimeOptions);
  const { app, routes, drain } = createApp(rt);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const createWorkspace = async () => (await rt.tenancy.createWorkspace(MASTER, null, { name: `test ${randomUUID().slice(0, 8)}` })).id;
  const workspace = await createWorkspace();
  // Workers start last: what the test app does first adds nothing to the time they run before the test begins.
  if (start !== false) await rt.start();
  const masterKey = config.auth.masterKey ?? '';
  const credentials: Record<string, string> = masterKey ? { 'X-API-Key': masterKey } : {};
  const named = new Map<string, Promise<string>>();
  const workspaceNamed = (name: string): Promise<string> => {
    if (!PLAIN_NAME.test(name) || UUID.test(name)) return Promise.resolve(name);
    if (!named.has(name)) named.set(name, createWorkspace());
    return named.get(name)!;
  };
  const send = workspaceRequest(url, workspace, credentials);
  return {
    url,
    rt,
    get config() {
      return rt.config;
    },
    workspace,
    masterKey,
    routes,
    drain,
    createWorkspace,
    workspaceNamed,
    async createApiKey(options = {}) {
      const made = await rt.auth.keys.create(MASTER, {
        name: 'test key',
        role: options.role ?? 'editor',
        ...(options.tenantId ? { tenant_id: options.tenantId } : {}),
        ...(options.workspaceId ? { workspace_id: options.workspaceId } : {}),
      });
      return made.key;
    },
    headers: { ...credentials, 'X-Workspace-ID': workspace },
    request: async (path, init = {}) =>
      send(path, init.workspace === undefined ? init : { ...init, workspace: await workspaceNamed(init.workspace) }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rt.close();
    },
  };
}
