/**
 * Writes the API's OpenAPI document to web/src/api/openapi.json and regenerates the console's TypeScript types
 * from it (web/src/api/schema.d.ts, with openapi-typescript): `npm run web:types`.
 * The document comes from the same zod schemas the routes validate with, so the console never re-declares them.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config/load';
import { createLogger } from '../../src/logger';
import { createRuntime } from '../../src/runtime';

const ROOT = path.resolve(__dirname, '../..');
const target = path.join(ROOT, 'web/src/api/openapi.json');

async function main(): Promise<void> {
  const config = loadConfig(
    { SERVICE_LLM_PROVIDER: 'mock', SERVICE_EMBEDDING_PROVIDER: 'mock', RUST_LOG: 'off' },
    { cwd: ROOT, homeDir: '/nonexistent' },
  );
  const rt = await createRuntime(config, createLogger(config.logLevel));
  const { openapi } = createApp(rt);
  await rt.close();
  fs.writeFileSync(target, `${JSON.stringify(openapi, null, 2)}\n`);
  for (const args of [
    ['scripts/web/console.mjs', 'deps'],
    ['web/node_modules/.bin/openapi-typescript', 'web/src/api/openapi.json', '-o', 'web/src/api/schema.d.ts'],
  ]) {
    const run = spawnSync('node', args, { cwd: ROOT, stdio: 'inherit' });
    if (run.status !== 0) process.exit(run.status ?? 1);
  }
  process.stdout.write(`wrote ${path.relative(ROOT, target)} and web/src/api/schema.d.ts\n`);
}

void main();
