import { randomUUID } from 'node:crypto';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { UsageRecord } from '../../src/domain/costs';
import { MemoryCostStore } from '../../src/store/memory/costs';
import { NameTable, UsageRows } from '../../src/store/memory/usage-rows';
import { totalsOf } from '../../src/store/ports';

v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

function liveHeap(): number {
  collect();
  return process.memoryUsage().heapUsed;
}

function usage(i: number, overrides: Partial<UsageRecord> = {}): UsageRecord {
  return {
    id: randomUUID(),
    workspace_id: 'ws',
    tenant_id: null,
    operation: i % 2 ? 'extraction' : 'embedding',
    category: i % 2 ? 'extraction' : 'embedding',
    provider: 'mock',
    model: 'mock-llm',
    kind: i % 2 ? 'llm' : 'embedding',
    input_tokens: 1000 + i,
    output_tokens: i % 7,
    cost_usd: i / 1e6,
    created_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    document_id: `doc-${Math.floor(i / 4)}`,
    query_id: null,
    ...overrides,
  };
}

describe('usage records in memory', () => {
  it('gives back every record as it was stored, oldest first, whatever order they came in', () => {
    const rows = new UsageRows(new NameTable());
    const records = [
      usage(3),
      usage(1, { id: 'not-a-uuid', created_at: '2026-01-01T00:00:01Z' }),
      usage(2, { tenant_id: 'tenant', query_id: 'q-1', document_id: null }),
      usage(0, { id: randomUUID().toUpperCase() }),
      usage(3, { operation: 'gleaning' }),
    ];
    for (const r of records) rows.add(r);
    const out = Array.from({ length: rows.length }, (_, i) => rows.record(i));
    const expected = [...records].sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
    expect(out).toEqual(expected);
  });

  it('keeps 50,000 records in a few megabytes, not as one object each', async () => {
    const store = new MemoryCostStore();
    const scope = { workspaceId: 'ws' };
    const before = liveHeap();
    for (let i = 0; i < 50_000; i += 500)
      await store.add(
        scope,
        Array.from({ length: 500 }, (_, j) => usage(i + j)),
      );
    // As objects with their own id and timestamp strings they took about 35 MB.
    expect(liveHeap() - before).toBeLessThan(8 * 1024 * 1024);
    const range = { from: '2026-01-01T00:00:10.000Z', to: '2026-01-01T00:00:20.000Z' };
    const listed = await store.list(scope, range);
    expect(listed.map((r) => r.input_tokens)).toEqual(Array.from({ length: 10 }, (_, i) => 1010 + i));
    expect(await store.totals(scope, range)).toEqual(totalsOf(listed));
    expect(await store.tenantTotals('nobody', range)).toEqual(new Map());
  });
});
