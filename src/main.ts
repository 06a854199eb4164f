import { once } from 'node:events';
import { createApp } from './app';
import { ConfigError, loadConfig } from './config/load';
import { tuneHeap } from './heap';
import { createLogger } from './logger';
import { createRuntime } from './runtime';

async function main(): Promise<void> {
  tuneHeap();
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
  const { app } = createApp(rt);
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
  const shutdown = async (signal: string) => {
    log.info({ signal }, 'shutting down');
    server.close();
    await rt.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

void main();
