import { once } from 'node:events';
import { createApp } from './app';
import { ConfigError, loadConfig } from './config/load';
import { nodeFlags } from './config/node-flags';
import { tuneHeap } from './heap';
import { createLogger } from './logger';
import { createRuntime } from './runtime';

async function main(): Promise<void> {
  tuneHeap(nodeFlags());
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error:\n${err.problems.map((p) => `  - ${p}`).join('\n')}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config.logLevel);
  let rt;
  try {
    rt = await createRuntime(config, log);
  } catch (err) {
    log.fatal({ err: (err as Error).message }, 'start-up failed');
    process.stderr.write(`start-up failed: ${(err as Error).message}\n`);
    process.exit(3);
  }
  const { app, drain } = createApp(rt);
  const server = app.listen(config.port, config.host);
  await once(server, 'listening');
  await rt.start();
  log.info(
    {
      host: config.host,
      port: config.port,
      storage: config.storage.mode,
      llm: rt.providers.defaultLlmProviderName(),
      version: config.version,
    },
    `kgrag listening on http://${config.host}:${config.port} (docs at /swagger-ui)`,
  );
  printFirstAdmin(rt.bootstrap.generatedAdmin, config.port);
  rt.bootstrap.generatedAdmin = null;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      // Everything written so far is committed or leased; leased work is taken up again after a restart.
      log.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    stopping = true;
    void shutdown(signal);
  };
  const shutdown = async (signal: string) => {
    const grace = config.shutdownGraceMs;
    const deadline = Date.now() + grace;
    log.info({ signal, grace_ms: grace }, 'shutting down');
    setTimeout(() => {
      log.error({ grace_ms: grace }, 'grace period over: exiting at once');
      process.exit(1);
    }, grace);
    // New connections are refused, new requests on open ones get 503, event streams end with a final event.
    server.close();
    drain.begin();
    // Not drained in time: the grace timer exits at once.
    if (!(await drain.idle(Math.max(0, deadline - Date.now())))) return;
    log.info('requests and streams finished');
    server.closeAllConnections();
    // Running ingestion stops at its next safe point and goes back to the queue; stores and Redis close.
    await rt.close();
    log.info({ signal, ms: grace - (deadline - Date.now()) }, 'stopped');
    process.exit(0);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/**
 * A first administrator created with a random password: its credentials go to the terminal this once, never to
 * the log, and are not kept anywhere but in the password hash.
 */
function printFirstAdmin(admin: { username: string; password: string } | null, port: number): void {
  if (!admin) return;
  const line = '-'.repeat(72);
  process.stderr.write(
    [
      line,
      'First start with authentication on and no user: an administrator was created.',
      `  user name: ${admin.username}`,
      `  password:  ${admin.password}`,
      'This password is shown once. Log in with:',
      `  curl -s -X POST localhost:${port}/api/v1/auth/login -H 'Content-Type: application/json' \\`,
      `    -d '{"username":"${admin.username}","password":"<password>"}'`,
      line,
      '',
    ].join('\n'),
  );
}

void main();
