import type { Server } from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { loadConfig } from '../../src/config/load';
import { nodeFlags } from '../../src/config/node-flags';
import type { AppConfig } from '../../src/config/types';
import { tuneHeap } from '../../src/heap';
import type { AppState } from '../../src/http/context';
import type { Runtime } from '../../src/runtime';
import { BENCH_MASTER_KEY } from './workspace';

const ROOT = path.resolve(__dirname, '../..');

/**
 * Runs this process as `node dist/main.js` runs: its heap tuning, and stack traces without source maps (tsx turns
 * them on, and the Neo4j driver captures a stack trace for every statement it runs).
 */
export function runAsBuilt(): void {
  tuneHeap(nodeFlags());
  process.setSourceMapsEnabled(false);
}

type Env = Record<string, string | undefined>;

/** The stores of the environment set aside: the service runs embedded. */
export const EMBEDDED: Env = { DATABASE_URL: undefined, NEO4J_URI: undefined };

/** The offline providers, whatever the environment names. */
export const MOCK_PROVIDERS: Env = { SERVICE_LLM_PROVIDER: 'mock', SERVICE_EMBEDDING_PROVIDER: 'mock' };

/** Every document is processed within its request, however large: a bench times the whole run. */
export const SYNCHRONOUS: Env = { SERVICE_ASYNC_THRESHOLD_BYTES: String(1024 * 1024 * 1024) };

export interface BenchSettings {
  /** The bench's choices that the process environment may override. */
  defaults?: Env;
  /** Start from the process environment (its NEO4J_URI and the like) rather than from nothing. */
  inherit?: boolean;
  /** Settings that hold whatever the environment says; a key set to undefined is removed. */
  fixed?: Env;
}

/**
 * The environment of a service a bench boots, in-process or as a process of its own: loopback, a free port, the
 * mock provider, authentication on with the bench's master key, rate limits off. Layers, last wins: these defaults,
 * `defaults`, the process environment (with `inherit`), the fixed settings above, `fixed`.
 */
export function benchEnv(settings: BenchSettings = {}): Env {
  return {
    ...MOCK_PROVIDERS,
    ...settings.defaults,
    ...(settings.inherit ? process.env : {}),
    PORT: '0',
    HOST: '127.0.0.1',
    RUST_LOG: 'silent',
    SERVICE_MASTER_API_KEY: BENCH_MASTER_KEY,
    SERVICE_RATE_LIMIT_UPLOAD: '0',
    SERVICE_RATE_LIMIT_QUERY: '0',
    SERVICE_RATE_LIMIT_GRAPH: '0',
    ...settings.fixed,
  };
}

/** The configuration of a service a bench boots in-process (`benchEnv`), with no catalog from the home directory. */
export function benchConfig(settings: BenchSettings = {}): AppConfig {
  return loadConfig(benchEnv(settings), { cwd: ROOT, homeDir: '/nonexistent' });
}

/** Serves the app on 127.0.0.1 and a free port; `close` drops its connections and stops serving. */
export async function listen(app: Koa<AppState>): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Serves the app (`listen`) and, unless `start` is false, starts the runtime's background work (the task queue,
 * community recomputes, settings polling). `close` stops serving, then closes the runtime.
 */
export async function serve(
  rt: Runtime,
  app: Koa<AppState>,
  options: { start?: boolean } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const server = await listen(app);
  if (options.start !== false) await rt.start();
  return {
    url: server.url,
    async close() {
      await server.close();
      await rt.close();
    },
  };
}
