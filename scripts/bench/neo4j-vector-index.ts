/**
 * Neo4j's vector index alone: `NEO4J_URI=bolt://… npx tsx scripts/bench/neo4j-vector-index.ts --workspace ID
 * [--chunks 10000] [--kinds entity,relationship] [--top-k 60] [--fetch 1,2,3] [--queries 100] [--neo4j-pid N]
 * [--rebuild]`. On a workspace that scripts/bench/neo4j-steps.ts (or neo4j.ts) loaded with the same `--chunks`, times
 * the index search statement of retrieval (cypher/vectors/search-index) with `--fetch` times `--top-k` candidates
 * for the questions of the query corpus (mock embedding), and compares its top k with the exact search's (recall@k).
 * `--rebuild` then rebuilds the indexes (Neo4jVectorStore.rebuildIndexes, timed) and measures again.
 * `--neo4j-pid` (a local server) adds Neo4j's CPU time per search.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { VectorKind } from '../../src/domain/types';
import { MockEmbeddings } from '../../src/llm/mock';
import { Neo4jClient, type Row, scopeParams } from '../../src/store/neo4j/client';
import { cypherTemplate, cypherText } from '../../src/store/neo4j/cypher';
import { count, int } from '../../src/store/neo4j/values';
import { Neo4jVectorStore, VECTOR_LABELS, vectorIndexName, vectorProperty } from '../../src/store/neo4j/vectors';
import { buildCorpus } from './query-corpus';

const { values } = parseArgs({
  options: {
    workspace: { type: 'string' },
    chunks: { type: 'string', default: '10000' },
    kinds: { type: 'string', default: 'entity,relationship' },
    'top-k': { type: 'string', default: '60' },
    fetch: { type: 'string', default: '1,2,3' },
    queries: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '30' },
    dimension: { type: 'string', default: '256' },
    'neo4j-pid': { type: 'string' },
    rebuild: { type: 'boolean', default: false },
  },
});

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

function neo4jCpuMs(): number {
  if (!values['neo4j-pid']) return NaN;
  const fields = readFileSync(`/proc/${values['neo4j-pid']}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function main(): Promise<void> {
  if (!process.env.NEO4J_URI || !values.workspace) throw new Error('set NEO4J_URI and --workspace');
  const db = new Neo4jClient({ uri: process.env.NEO4J_URI, user: null, password: null, database: null });
  const dimension = Number(values.dimension);
  const store = new Neo4jVectorStore(db, dimension);
  const scope = { workspaceId: values.workspace };
  const kinds = values.kinds.split(',') as VectorKind[];
  const k = Number(values['top-k']);
  const embedder = new MockEmbeddings('mock', 'mock-embedding', dimension);
  const questions = buildCorpus(Number(values.chunks)).queries;
  const vectors = Array.from({ length: Number(values.queries) }, (_, i) => embedder.embedOne(questions[i % questions.length]));
  const base = {
    ...scopeParams(scope),
    dimension: int(dimension),
    property: vectorProperty(dimension),
    document_ids: null,
    top_k: count(k),
  };
  const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  const ids = (rows: Row[]) => rows.map((r) => String(r.id));

  const exact = new Map<string, string[][]>();
  for (const kind of kinds) {
    const text = cypherTemplate('vectors/search-exact', { LABEL: VECTOR_LABELS[kind] });
    const lists: string[][] = [];
    for (const vector of vectors) lists.push(ids(await db.readText(text, { ...base, vector, query_norm: norm(vector) })));
    exact.set(kind, lists);
  }

  const rows: string[][] = [];
  const measure = async (pass: string) => {
    for (const kind of kinds) {
      const index = vectorIndexName(kind, dimension);
      for (const factor of values.fetch.split(',').map(Number)) {
        const params = (vector: number[]) => ({ ...base, index, vector, query_norm: norm(vector), fetch: count(Math.ceil(k * factor)) });
        const text = cypherText('vectors/search-index');
        for (let i = 0; i < Number(values.warmup); i++) await db.readText(text, params(vectors[i % vectors.length]));
        const times: number[] = [];
        let found = 0;
        const cpuBefore = neo4jCpuMs();
        for (let i = 0; i < vectors.length; i++) {
          const started = performance.now();
          const got = ids(await db.readText(text, params(vectors[i])));
          times.push(performance.now() - started);
          const truth = new Set(exact.get(kind)?.[i] ?? []);
          found += got.filter((id) => truth.has(id)).length / Math.max(1, truth.size);
        }
        const cpu = (neo4jCpuMs() - cpuBefore) / vectors.length;
        times.sort((a, b) => a - b);
        rows.push([
          pass,
          kind,
          String(Math.ceil(k * factor)),
          percentile(times, 0.5).toFixed(2),
          percentile(times, 0.95).toFixed(2),
          cpu.toFixed(2),
          (found / vectors.length).toFixed(3),
        ]);
      }
    }
  };
  try {
    await measure('as written');
    if (values.rebuild) {
      for (const r of await store.rebuildIndexes(kinds)) {
        console.log(`rebuilt ${r.index}: ${r.vectors} vectors in ${(r.ms / 1000).toFixed(1)} s`);
      }
      await measure('rebuilt');
    }
  } finally {
    await db.close();
  }
  console.log(`\nvector index search, top ${k}, ${vectors.length} questions, workspace ${scope.workspaceId}\n`);
  console.log('| index | kind | candidates | p50 ms | p95 ms | Neo4j CPU ms/search | recall@k vs exact |');
  console.log('|:---|:---|---:|---:|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
