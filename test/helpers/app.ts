import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config/load';
import type { AppConfig } from '../../src/config/types';
import { createLogger } from '../../src/logger';
import { createRuntime, type Runtime } from '../../src/runtime';
import { type TestRequestInit, workspaceRequest } from './request';

export interface TestApp {
  url: string;
  rt: Runtime;
  config: AppConfig;
  /** A fresh workspace id, so test files never see each other's data. */
  workspace: string;
  /** The headers every request of this test app carries (workspace, and credentials once authentication applies); for clients built outside `request`. */
  headers: Record<string, string>;
  /** fetch against the app with the test workspace header set. */
  request(path: string, init?: TestRequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Boots the real app on 127.0.0.1 port 0 with the given environment on top of the test defaults.
 * Storage follows TEST_NEO4J_URI (persistent mode) when the test runner provides one.
 */
export async function startTestApp(env: Record<string, string> = {}, options: { start?: boolean } = {}): Promise<TestApp> {
  const base: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    RUST_LOG: process.env.TEST_LOG_LEVEL ?? 'silent',
    SERVICE_MODELS_CONFIG: `${__dirname}/../../models.toml`,
    SERVICE_RATE_LIMIT_UPLOAD: '0',
    SERVICE_RATE_LIMIT_QUERY: '0',
    SERVICE_RATE_LIMIT_GRAPH: '0',
    WORKER_THREADS: '2',
  };
  if (process.env.TEST_NEO4J_URI) base.NEO4J_URI = process.env.TEST_NEO4J_URI;
  if (process.env.TEST_QDRANT_URL) base.QDRANT_URL = process.env.TEST_QDRANT_URL;
  const config = loadConfig({ ...base, ...env }, { cwd: `${__dirname}/../..`, homeDir: '/nonexistent' });
  const rt = await createRuntime(config, createLogger(config.logLevel));
  const { app } = createApp(rt);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  if (options.start !== false) await rt.start();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const workspace = `ws-${randomUUID().slice(0, 8)}`;
  return {
    url,
    rt,
    config,
    workspace,
    headers: { 'X-Workspace-ID': workspace },
    request: workspaceRequest(url, workspace),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rt.close();
    },
  };
}
