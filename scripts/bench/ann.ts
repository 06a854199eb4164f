/**
 * Approximate against exact vector search in the embedded store: `npx tsx scripts/bench/ann.ts [--sizes 10000]
 * [--kind chunk|relationship] [--queries 200] [--hnsw off]`.
 *
 * Embeds the texts of the query benchmark's synthetic corpus (scripts/bench/query-corpus.ts) with the mock
 * embedding (256 dimensions), loads them into three memory vector stores: one scanning every float row, one
 * picking candidates from a copy of the rows in bytes and scoring them on the floats, one searching through its
 * HNSW index from the first point on (whatever the store's threshold; `--hnsw off` leaves it out: it is built on
 * one thread at about 1.5 ms a point; the load time counts until it is complete). Prints per size: load time, search p50 / p99 of each for the corpus's queries (top 10), and
 * recall@10 of the last two against the float scan. Runs in one process, CPU-bound: read the
 * times beside the machine's load average printed with them.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { VectorPoint } from '../../src/domain/types';
import { MockEmbeddings } from '../../src/llm/mock';
import { MemoryVectorStore } from '../../src/store/memory/vectors';
import { loadAverage } from './host';
import { buildCorpus } from './query-corpus';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000' },
    kind: { type: 'string', default: 'chunk' },
    queries: { type: 'string', default: '200' },
    hnsw: { type: 'string', default: 'on' },
  },
});

const scope = { workspaceId: 'bench-ann' };
const embedder = new MockEmbeddings();

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function embedAll(texts: string[]): Promise<number[][]> {
  const out: number[][] = [];
  for (let i = 0; i < texts.length; i += 256) out.push(...(await embedder.embed(texts.slice(i, i + 256))));
  return out;
}

async function main(): Promise<void> {
  const kind = args.kind === 'relationship' ? 'relationship' : 'chunk';
  const rows: string[][] = [];
  for (const size of (args.sizes as string).split(',').map(Number)) {
    const corpus = buildCorpus(size);
    const items =
      kind === 'chunk'
        ? corpus.chunks.map((c) => ({ id: c.id, text: c.content, document_ids: [c.document_id] }))
        : corpus.relationships.map((r) => ({
            id: r.id,
            text: `${r.keywords.join(', ')}\n${r.source} - ${r.target}\n${r.description}`,
            document_ids: r.document_ids,
          }));
    const vectors = await embedAll(items.map((i) => i.text));
    const points: VectorPoint[] = items.map((item, i) => ({ id: item.id, vector: vectors[i], document_ids: item.document_ids }));
    const queryVectors = await embedAll(
      Array.from(
        { length: Number(args.queries) },
        (_, i) => corpus.queries[i % corpus.queries.length] + (i >= corpus.queries.length ? ` ${i}` : ''),
      ),
    );

    const never = Number.MAX_SAFE_INTEGER;
    const exact = new MemoryVectorStore({ annMinRows: never, bytesMinRows: never });
    const bytes = new MemoryVectorStore({ annMinRows: never });
    const ann = new MemoryVectorStore({ annMinRows: 1 });
    const load = async (store: MemoryVectorStore) => {
      const t = performance.now();
      for (let i = 0; i < points.length; i += 1000) await store.upsert(scope, kind, points.slice(i, i + 1000));
      await store.indexed();
      return performance.now() - t;
    };
    const exactLoad = await load(exact);
    await load(bytes);
    const annLoad = args.hnsw !== 'off' ? await load(ann) : NaN;
    const time = async (store: MemoryVectorStore) => {
      const ms: number[] = [];
      const hits: string[][] = [];
      for (const q of queryVectors) {
        const t = performance.now();
        hits.push((await store.search(scope, kind, q, 10)).map((h) => h.id));
        ms.push(performance.now() - t);
      }
      return { ms, hits };
    };
    for (const store of args.hnsw !== 'off' ? [exact, bytes, ann] : [exact, bytes]) await time(store);
    const e = await time(exact);
    const b = await time(bytes);
    const a = args.hnsw !== 'off' ? await time(ann) : { ms: [NaN], hits: [] };
    const recall = (found: string[][]) => {
      let kept = 0;
      let wanted = 0;
      found.forEach((hits, i) => {
        const truth = new Set(e.hits[i]);
        wanted += truth.size;
        kept += hits.filter((id) => truth.has(id)).length;
      });
      return (kept / Math.max(1, wanted)).toFixed(3);
    };
    const times = (ms: number[]) => `${percentile(ms, 50).toFixed(2)} / ${percentile(ms, 99).toFixed(2)} ms`;
    rows.push([
      `${size} ${kind}s`,
      `${(exactLoad / 1000).toFixed(2)} s / ${args.hnsw !== 'off' ? `${(annLoad / 1000).toFixed(2)} s` : '-'}`,
      times(e.ms),
      times(b.ms),
      recall(b.hits),
      args.hnsw !== 'off' ? times(a.ms) : '-',
      args.hnsw !== 'off' ? recall(a.hits) : '-',
    ]);
  }
  const header = [
    'points',
    'load exact / HNSW',
    'float scan p50 / p99',
    'byte scan + rescoring p50 / p99',
    'recall@10',
    'HNSW p50 / p99',
    'recall@10',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  const load = loadAverage();
  process.stdout.write(`\nexact, byte-ranked and HNSW search, embedded store, mock embedding (256 dims), load average ${load}\n`);
  process.stdout.write(`${line(header)}\n${line(widths.map((w) => '-'.repeat(w)))}\n`);
  for (const r of rows) process.stdout.write(`${line(r)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
