/**
 * Memory kept per uploaded note: `npx tsx --expose-gc scripts/bench/note-memory.ts [--notes 1000]`.
 * Boots the service in-process (embedded stores, mock provider), uploads one-sentence notes as the load benchmark
 * does (POST /documents, processed in the background), waits for them to be processed, and prints the live heap
 * (after a full collection) per note, then how much of it each store holds: each store drops the workspace in
 * turn and the heap is measured again. What is left after every store has dropped it is held elsewhere.
 */
import { parseArgs } from 'node:util';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/logger';
import { createRuntime } from '../../src/runtime';
import type { Scope } from '../../src/domain/types';
import { benchConfig, runAsBuilt, serve } from './service';
import { BENCH_MASTER_KEY as KEY } from './workspace';

function liveHeap(): number {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run with --expose-gc');
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { notes: { type: 'string', default: '1000' } } });
  const notes = Number(values.notes);
  runAsBuilt();
  const rt = await createRuntime(benchConfig(), createLogger('silent'));
  const service = await serve(rt, createApp(rt).app);
  const { url } = service;
  const headers = { 'X-API-Key': KEY, 'Content-Type': 'application/json' };
  const workspace = async (name: string) =>
    (await (
      await fetch(`${url}/api/v1/workspaces`, { method: 'POST', headers, body: JSON.stringify({ name: `${name} ${Date.now()}` }) })
    ).json()) as { id: string; tenant_id?: string };
  const upload = async (workspaceId: string, i: number) => {
    const res = await fetch(`${url}/api/v1/documents`, {
      method: 'POST',
      headers: { ...headers, 'X-Workspace-ID': workspaceId },
      body: JSON.stringify({
        content: `Load note ${process.pid}-${i}: Dana Lee of Umbrella Group met Alice Johnson in Madrid about the Falcon Engine.`,
        async_processing: true,
      }),
    });
    if (!res.ok) throw new Error(`upload ${i}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  const uploadAll = async (workspaceId: string, count: number) => {
    const width = 16;
    for (let i = 0; i < count; i += width) {
      await Promise.all(Array.from({ length: Math.min(width, count - i) }, (_, j) => upload(workspaceId, i + j)));
    }
    while ((await rt.stores.tasks.countOpen(null)) > 0) await new Promise((resolve) => setTimeout(resolve, 200));
  };
  // A warm-up workspace: first-use allocations (compiled code, the token tables, pools) are not per note.
  await uploadAll((await workspace('warm-up')).id, 100);
  const ws = await workspace('notes');
  const before = liveHeap();
  await uploadAll(ws.id, notes);
  const after = liveHeap();
  const added = await rt.stores.chunks.count({ workspaceId: ws.id });
  const perNote = (bytes: number) => (bytes / added / 1024).toFixed(2);
  process.stdout.write(
    `notes: ${added}; live heap ${(before / 1048576).toFixed(1)} -> ${(after / 1048576).toFixed(1)} MB, ${perNote(after - before)} KB per note\n`,
  );
  const stores = rt.stores as unknown as Record<string, { dropWorkspace?: (scope: unknown) => void }>;
  const kvStates = rt.stores.kv as unknown as { workspaces: { entries(): Iterable<[Scope, Map<string, Map<string, string>>]> } };
  const scope = [...kvStates.workspaces.entries()].map(([s]) => s).find((s) => s.workspaceId === ws.id)!;
  // Counted in a function of their own, so that the records listed are garbage before the heap is measured.
  const counts = async () => {
    const usage = await rt.stores.costs.list(scope, { from: '2000-01-01T00:00:00.000Z', to: '2999-01-01T00:00:00.000Z' });
    const tasks = await rt.stores.tasks.list(scope, { limit: 1, offset: 0 });
    return (
      `usage records per note: ${(usage.length / added).toFixed(2)} (${[...new Set(usage.map((r) => r.operation))].join(', ')}); ` +
      `tasks per note: ${(tasks.total / added).toFixed(2)}\n\n| held by | KB per note |\n|---|---:|\n`
    );
  };
  process.stdout.write(await counts());
  const scopes = [scope];
  let last = after;
  // The key-value store one namespace at a time (extraction cache, LLM answers, merge state, ...).
  for (const [kvScope, namespaces] of kvStates.workspaces.entries()) {
    if (kvScope.workspaceId !== ws.id) continue;
    for (const namespace of [...namespaces.keys()].sort()) {
      const values = [...namespaces.get(namespace)!.values()];
      const entries = values.length;
      const json = values.reduce((n: number, v) => n + v.length, 0);
      values.length = 0;
      namespaces.delete(namespace);
      const now = liveHeap();
      process.stdout.write(`| kv ${namespace} (${entries} entries, ${perNote(json)} KB as JSON) | ${perNote(last - now)} |\n`);
      last = now;
    }
  }
  for (const name of ['documents', 'chunks', 'graph', 'vectors', 'tasks', 'costs', 'communities', 'conversations']) {
    for (const scope of scopes) stores[name]?.dropWorkspace?.(scope);
    const now = liveHeap();
    process.stdout.write(`| ${name} | ${perNote(last - now)} |\n`);
    last = now;
  }
  // The graph change feed keeps the last batches of every workspace for followers that reconnect (a bounded window).
  const feed = rt.events.feed as unknown as { topics: Map<string, unknown[]> };
  const batches = [...feed.topics.entries()].filter(([topic]) => topic.endsWith(ws.id)).reduce((n, [, e]) => n + e.length, 0);
  for (const topic of [...feed.topics.keys()]) if (topic.endsWith(ws.id)) feed.topics.delete(topic);
  const now = liveHeap();
  process.stdout.write(`| graph change feed (${batches} batches) | ${perNote(last - now)} |\n`);
  last = now;
  process.stdout.write(`| elsewhere (caches, buffers) | ${perNote(last - before)} |\n`);
  await service.close();
  process.exit(0);
}

void main();
