import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { loadConfig } from '../../src/config/load';
import { nodeFlags } from '../../src/config/node-flags';
import type { AppConfig } from '../../src/config/types';
import { tuneHeap } from '../../src/heap';
import type { AppState } from '../../src/http/context';
import type { Runtime } from '../../src/runtime';
import { BENCH_MASTER_KEY } from './workspace';

/**
 * Runs this process as `node dist/main.js` runs: its heap tuning, and stack traces without source maps (tsx turns
 * them on, and the Neo4j driver captures a stack trace for every statement it runs).
 */
export function runAsBuilt(): void {
  tuneHeap(nodeFlags());
  process.setSourceMapsEnabled(false);
}

/**
 * The configuration of a service a bench boots in-process: loopback, a free port, the mock provider, authentication
 * on, rate limits off; over `inherited` (such as the process environment), under `env`.
 */
export function benchConfig(env: Record<string, string | undefined> = {}, inherited: Record<string, string | undefined> = {}): AppConfig {
  return loadConfig(
    {
      ...inherited,
      PORT: '0',
      HOST: '127.0.0.1',
      RUST_LOG: 'silent',
      SERVICE_MASTER_API_KEY: BENCH_MASTER_KEY,
      SERVICE_LLM_PROVIDER: 'mock',
      SERVICE_RATE_LIMIT_UPLOAD: '0',
      SERVICE_RATE_LIMIT_QUERY: '0',
      SERVICE_RATE_LIMIT_GRAPH: '0',
      ...env,
    },
    { cwd: `${__dirname}/../..` },
  );
}

/** Serves the app on 127.0.0.1 and a free port and starts the runtime's background work. */
export async function serve(rt: Runtime, app: Koa<AppState>): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  await rt.start();
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      server.close();
      await rt.close();
    },
  };
}
