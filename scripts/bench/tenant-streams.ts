/**
 * One tenant's graph stream subscribers next to another tenant's work, in persistent mode:
 * `npm run bench:tenant-streams -- [--subscribers 1000] [--documents 8] [--document-kb 32] [--query-clients 4]`.
 * Starts Neo4j (scripts/neo4j/neo4j.sh; NEO4J_URI to use a running one), boots the service in-process at its
 * defaults on it (mock provider), makes two tenants and runs the quiet tenant's work twice: alone, then while
 * `--subscribers` clients hold `GET /graph/stream` open with the greedy tenant's key (after an unreported warm-up
 * round). The work: `--documents` documents of the generated bench corpus, cut to `--document-kb`, submitted at
 * once (processed in the background) while `--query-clients` clients ask queries one after another until every
 * document is done. Prints per run: subscribers admitted and refused, the quiet tenant's ingest time, its
 * queries with their p50 / p99, and its errors (401s apart).
 */
import { parseArgs } from 'node:util';
import type { Principal } from '../../src/domain/accounts';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/logger';
import { createRuntime, type Runtime } from '../../src/runtime';
import { buildCorpus } from './ingest';
import { startBenchNeo4j } from './neo4j-server';
import { benchConfig, runAsBuilt, serve } from './service';
import { table } from './table';

const OPERATOR: Principal = { kind: 'master', id: 'master', tenantId: null, role: 'admin', userId: null, workspaceId: null };
const QUESTIONS = [
  'Who works with Alice Johnson?',
  'What does Acme Corporation build?',
  'Where is the research lab?',
  'Which projects use graphs?',
];

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Client {
  headers: Record<string, string>;
}

/** A new tenant with an editor key, as a client of its default workspace. */
async function tenant(rt: Runtime, name: string): Promise<Client> {
  const made = await rt.tenancy.createTenant({ name: `${name} ${Date.now().toString(36)}` });
  const { key } = await rt.auth.keys.create(OPERATOR, { name: `${name} key`, role: 'editor', tenant_id: made.tenant.id });
  return { headers: { 'X-API-Key': key, 'X-Workspace-ID': made.default_workspace.id } };
}

interface Subscribers {
  admitted: number;
  refused: number;
  failed: number;
  close(): void;
}

/** Opens `count` graph streams at once and keeps the admitted ones reading until closed. */
async function subscribe(url: string, client: Client, count: number): Promise<Subscribers> {
  const controller = new AbortController();
  const statuses = await Promise.all(
    Array.from({ length: count }, async () => {
      try {
        const res = await fetch(`${url}/api/v1/graph/stream`, {
          headers: { ...client.headers, Accept: 'text/event-stream' },
          signal: controller.signal,
        });
        if (res.status === 200 && res.body) {
          const reader = res.body.getReader();
          void (async () => {
            while (!(await reader.read()).done);
          })().catch(() => undefined);
        } else await res.arrayBuffer().catch(() => undefined);
        return res.status;
      } catch {
        return 0;
      }
    }),
  );
  return {
    admitted: statuses.filter((s) => s === 200).length,
    refused: statuses.filter((s) => s === 429 || s === 503).length,
    failed: statuses.filter((s) => s !== 200 && s !== 429 && s !== 503).length,
    close: () => controller.abort(),
  };
}

interface Work {
  ingestSeconds: number;
  completed: number;
  queries: number[];
  errors: number;
  unauthorized: number;
}

/** The quiet tenant's documents and queries, side by side until every document is done. */
async function work(url: string, client: Client, documents: number, documentKb: number, queryClients: number): Promise<Work> {
  const out: Work = { ingestSeconds: 0, completed: 0, queries: [], errors: 0, unauthorized: 0 };
  const count = (status: number) => {
    if (status === 401) out.unauthorized += 1;
    else if (status >= 400) out.errors += 1;
  };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(url + path, {
      method: 'POST',
      headers: { ...client.headers, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }).catch(() => null);
    count(res?.status ?? 500);
    return res;
  };
  const t0 = performance.now();
  const tasks = (
    await Promise.all(
      buildCorpus(documents).map(async (doc) => {
        doc.content = doc.content.slice(0, documentKb * 1024);
        const res = await post('/api/v1/documents', { ...doc, async_processing: true });
        return res?.ok ? ((await res.json()) as { task_id: string }).task_id : null;
      }),
    )
  ).filter((id): id is string => id !== null);
  let ingesting = true;
  const askers = Array.from({ length: queryClients }, async (_, c) => {
    for (let i = c; ingesting; i += queryClients) {
      const started = performance.now();
      const res = await post('/api/v1/query', { query: QUESTIONS[i % QUESTIONS.length] });
      await res?.arrayBuffer().catch(() => undefined);
      if (res?.ok) out.queries.push(performance.now() - started);
    }
  });
  const pending = new Set(tasks);
  while (pending.size > 0) {
    await sleep(500);
    for (const id of [...pending]) {
      const res = await fetch(`${url}/api/v1/tasks/${id}`, { headers: client.headers }).catch(() => null);
      if (!res?.ok) {
        count(res?.status ?? 500);
        continue;
      }
      const { status } = (await res.json()) as { status: string };
      if (status === 'completed') out.completed += 1;
      if (['completed', 'failed', 'cancelled'].includes(status)) pending.delete(id);
    }
  }
  out.ingestSeconds = (performance.now() - t0) / 1000;
  ingesting = false;
  await Promise.all(askers);
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      subscribers: { type: 'string', default: '1000' },
      documents: { type: 'string', default: '8' },
      'document-kb': { type: 'string', default: '32' },
      'query-clients': { type: 'string', default: '4' },
    },
  });
  const subscribers = Number(values.subscribers);
  const documents = Number(values.documents);
  const queryClients = Number(values['query-clients']);
  const documentKb = Number(values['document-kb']);
  runAsBuilt();
  const neo4j = startBenchNeo4j();
  try {
    const rt = await createRuntime(benchConfig({ fixed: { NEO4J_URI: neo4j.uri } }), createLogger('silent'));
    const service = await serve(rt, createApp(rt).app);
    const rows: Array<Record<string, string | number>> = [];
    try {
      const greedy = await tenant(rt, 'Greedy');
      // A first, unreported round: Neo4j's plans and JIT warm, as in the rounds that follow.
      await work(service.url, await tenant(rt, 'Warm-up'), 2, documentKb, queryClients);
      for (const open of [0, subscribers]) {
        const quiet = await tenant(rt, `Quiet ${open}`);
        const subs = open > 0 ? await subscribe(service.url, greedy, open) : null;
        const done = await work(service.url, quiet, documents, documentKb, queryClients);
        subs?.close();
        const sorted = done.queries.sort((a, b) => a - b);
        rows.push({
          'greedy subscribers': open,
          'admitted / refused / failed': subs ? `${subs.admitted} / ${subs.refused} / ${subs.failed}` : '-',
          documents: `${done.completed} / ${documents}`,
          'ingest s': done.ingestSeconds.toFixed(1),
          queries: sorted.length,
          'query p50 ms': percentile(sorted, 50).toFixed(0),
          'query p99 ms': percentile(sorted, 99).toFixed(0),
          errors: done.errors,
          '401s': done.unauthorized,
        });
      }
    } finally {
      await service.close();
    }
    console.log(`Neo4j: ${neo4j.origin}; the quiet tenant: ${documents} documents of ${documentKb} KB, ${queryClients} query clients.\n`);
    table(rows);
  } finally {
    neo4j.stop();
  }
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
