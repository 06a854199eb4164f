import { startTestApp, type TestApp } from '../helpers/app';
import type { DocumentExtraction } from '../../src/domain/types';
import type { ExtractionHealth } from '../../src/records/extractions';
import type { UsageEvent } from '../../src/llm/usage';
import { EXAMPLE_NAMES } from '../../src/prompts/extraction';
import { isPlaceholder } from '../../src/ingest/extract/grounding';
import { DEFAULT_NO_CONTEXT_RESPONSE } from '../../src/retrieval';
import { dropsInWords, expectedWarnings, figuresTable, healthShape, type RunFigures, statusByRule } from './health';
import { ollamaGenerations, realEnv, realRuntime, report, type RealRuntime } from './runtime';

/**
 * A short real document ingested and queried through real local models (Ollama on the CPU, one thread), through
 * the ordinary `ollama` and `openai` provider types. It asserts behaviour, not quality: the document's status and
 * extraction health agree with what was stored (docs/api.md §4.1), every stored entity is named in its source
 * chunk and none is a placeholder or a name of the prompt's example, queries answer, a question whose retrieval
 * finds nothing gets the "no context" answer without a model call, and no call that was still writing was cut by a
 * timeout. Timings and the records parsed, kept and dropped by reason are printed, with a table of every run.
 *
 * The document's subject is not the prompt's example (Marie Curie): a model that copies the example writes names
 * the text does not hold, which grounding drops as `example`.
 */

jest.setTimeout(300_000);

const DOCUMENT = {
  title: 'Ada Lovelace',
  content:
    'Ada Lovelace was an English mathematician and writer, born in London in 1815, the daughter of the poet Lord ' +
    'Byron. She worked with Charles Babbage on his proposed mechanical computer, the Analytical Engine. In 1843 she ' +
    'published a translation of an article by the Italian engineer Luigi Menabrea, with notes of her own that ' +
    'include an algorithm for computing Bernoulli numbers on the machine. She is often called the first computer ' +
    'programmer. The programming language Ada, designed for the United States Department of Defense, is named after her.',
};

const QUESTIONS = [
  { query: 'Where was Ada Lovelace born?', mode: 'naive' },
  { query: 'Which machine did Ada Lovelace work on with Charles Babbage?', mode: 'hybrid' },
];

interface Run {
  label: string;
  llm: { provider: string; model: string };
  questions: typeof QUESTIONS;
}

const RUNS: Run[] = [
  { label: 'ollama provider type, SmolLM2 135M instruct', llm: { provider: 'local', model: 'smollm2' }, questions: QUESTIONS },
  {
    label: 'openai provider type (Ollama /v1), SmolLM2 135M instruct',
    llm: { provider: 'local-openai', model: 'smollm2' },
    questions: QUESTIONS,
  },
  // A base model without a chat template: it echoes the prompt back, a hostile case for extraction.
  { label: 'ollama provider type, Gemma 3 270M base', llm: { provider: 'local', model: 'gemma3' }, questions: QUESTIONS.slice(0, 1) },
];

/** Lower case, no diacritics, punctuation as spaces, single spaces. */
function normalise(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const groundedIn = (name: string, chunk: string) => ` ${normalise(chunk)} `.includes(` ${normalise(name)} `);

interface DocumentDetail {
  id: string;
  status: string;
  error: string | null;
  chunk_count: number;
  entity_count: number;
  relationship_count: number;
  warnings: Array<{ code: string; message: string }>;
  extraction: DocumentExtraction | null;
}

interface QueryAnswer {
  answer: string;
  no_context: boolean;
  sources: unknown[];
}

let rt: RealRuntime;
const figures: RunFigures[] = [];

beforeAll(() => {
  rt = realRuntime();
});

afterAll(() => {
  report('records parsed, kept and dropped by reason, per run:');
  for (const line of figuresTable(figures)) report(line);
});

describe.each(RUNS)('real models: $label', ({ label, llm, questions }) => {
  let app: TestApp;
  const events: UsageEvent[] = [];
  let document: DocumentDetail;
  let chunkHealth: ExtractionHealth[] = [];
  const row: RunFigures = {
    run: label,
    status: '',
    chunks: 0,
    msPerChunk: 0,
    queries: [],
    extraction: null,
    entities: 0,
    relationships: 0,
    finishReasons: [],
  };
  figures.push(row);
  const llmCalls = () => events.filter((e) => e.kind === 'llm');

  beforeAll(async () => {
    app = await startTestApp(realEnv(rt, llm), { recorder: { record: (e) => events.push(e) } });
    const started = performance.now();
    const res = await app.request('/api/v1/documents', { method: 'POST', json: DOCUMENT });
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status >= 300) throw new Error(`upload: HTTP ${res.status} ${JSON.stringify(body)}`);
    document = await waitForDocument(app, String(body.id));
    const ms = performance.now() - started;
    const chunks = document.extraction?.chunks || document.chunk_count || 1;
    Object.assign(row, {
      status: document.status,
      chunks,
      msPerChunk: Math.round(ms / chunks),
      extraction: document.extraction,
      entities: document.entity_count,
      relationships: document.relationship_count,
    });
    report(`${label}: document ${document.status} in ${Math.round(ms)} ms, ${chunks} chunk(s), ${row.msPerChunk} ms per chunk`);
    report(`${label}: extraction ${JSON.stringify(document.extraction)}`);
    if (document.error) report(`${label}: error ${JSON.stringify(document.error)}`);
    if (document.warnings.length) report(`${label}: warnings ${document.warnings.map((w) => w.code).join(', ')}`);
    chunkHealth = await healthOfChunks(app, document.id);
    for (const [i, h] of chunkHealth.entries()) report(`${label}: chunk ${i} health ${JSON.stringify(h)}`);
  });

  afterAll(async () => {
    const reasons = llmCalls().map((e) => `${e.task ?? 'call'}:${e.finish_reason ?? '-'}:${e.input_tokens}/${e.output_tokens}`);
    report(`${label}: LLM calls (task:finish reason:input/output tokens) ${reasons.join(' ')}`);
    row.finishReasons = llmCalls()
      .filter((e) => e.task === 'extract' || e.task === 'glean')
      .map((e) => `${e.finish_reason ?? '-'} ${e.input_tokens}→${e.output_tokens}`);
    await app?.close();
  });

  it("ends with the status the documented rule gives for its extraction's figures, and says why", () => {
    const e = document.extraction;
    expect(e).not.toBeNull();
    if (!e) return;
    expect(e.chunks).toBeGreaterThan(0);
    // A record the model wrote twice is kept once: parsed counts both, kept one, dropped neither.
    expect(e.records_parsed).toBeGreaterThanOrEqual(e.records_kept + e.records_dropped);
    expect(e.records_dropped).toBe(Object.values(e.dropped).reduce((a, b) => a + b, 0));
    expect(e.prompt_version).toEqual(expect.any(Number));
    expect(document.status).toBe(statusByRule(e));
    const drops = dropsInWords(e.dropped);
    if (document.status === 'failed') {
      // Nothing of a failed document enters the graph; the error names the drops.
      expect(document.error).toMatch(/yielded no record grounded in the text/);
      for (const words of drops) expect(document.error).toContain(words);
      expect(document.entity_count).toBe(0);
    } else {
      expect(document.warnings.map((w) => w.code).sort()).toEqual(expectedWarnings(e, document.entity_count).sort());
      const dropped = document.warnings.find((w) => w.code === 'records_dropped');
      for (const words of drops) expect(dropped?.message).toContain(words);
    }
  });

  it("counts the document's extraction in its workspace's statistics", async () => {
    const e = document.extraction as DocumentExtraction;
    const stats = await json<{ extraction: Record<string, unknown> }>(app, `/api/v1/workspaces/${app.workspace}/stats`);
    expect(stats.extraction).toEqual({
      documents_with_warnings: document.status === 'completed' && document.warnings.length > 0 ? 1 : 0,
      documents_failed_extraction: document.status === 'failed' ? 1 : 0,
      records_parsed: e.records_parsed,
      records_kept: e.records_kept,
      records_dropped: e.records_dropped,
      dropped: e.dropped,
      truncated_chunks: e.truncated_chunks.length,
      timed_out_chunks: 0,
    });
  });

  it('records the health of every stored chunk, and they add up to the document', () => {
    const e = document.extraction as DocumentExtraction;
    expect(chunkHealth).toHaveLength(e.chunks);
    for (const h of chunkHealth) {
      expect(h).toEqual(healthShape());
      expect(h.prompt_version).toBe(e.prompt_version);
    }
    const sum = (pick: (h: ExtractionHealth) => number) => chunkHealth.reduce((n, h) => n + pick(h), 0);
    expect(sum((h) => h.records_parsed)).toBe(e.records_parsed);
    expect(sum((h) => h.records_kept)).toBe(e.records_kept);
    for (const [reason, n] of Object.entries(e.dropped)) expect(sum((h) => h.dropped[reason as keyof typeof h.dropped] ?? 0)).toBe(n);
    expect(chunkHealth.filter((h) => !h.completion_marker)).toHaveLength(e.unmarked_chunks.length);
    expect(chunkHealth.filter((h) => h.finish_reason === 'length')).toHaveLength(e.truncated_chunks.length);
  });

  it('stores only entities named in their source chunk, none a placeholder or a name of the example', async () => {
    const entities = await json<{ entities: Array<{ id: string; name: string }> }>(app, '/api/v1/graph/entities?limit=1000');
    const relationships = await json<{ relationships: unknown[] }>(app, '/api/v1/graph/relationships?limit=1000');
    const ungrounded: string[] = [];
    for (const entity of entities.entities) {
      const provenance = await json<{ sources: Array<{ chunks: Array<{ chunk_id: string }> }> }>(
        app,
        `/api/v1/entities/${encodeURIComponent(entity.id)}/provenance`,
      );
      const chunkIds = provenance.sources.flatMap((s) => s.chunks.map((c) => c.chunk_id));
      expect(chunkIds.length).toBeGreaterThan(0);
      const texts = await Promise.all(chunkIds.map(async (id) => (await json<{ content: string }>(app, `/api/v1/chunks/${id}`)).content));
      if (!texts.some((text) => groundedIn(entity.name, text))) ungrounded.push(entity.name);
    }
    const names = entities.entities.map((e) => e.name);
    report(
      `${label}: stored ${names.length} entities (${names.join(', ') || 'none'}), ${relationships.relationships.length} relationships; ` +
        `entities not named in their chunk: ${ungrounded.length ? ungrounded.join(', ') : 'none'}`,
    );
    expect(ungrounded).toEqual([]);
    expect(names.filter((name) => isPlaceholder(name) || EXAMPLE_NAMES.some((x) => normalise(x) === normalise(name)))).toEqual([]);
    expect(names).toHaveLength(document.entity_count);
  });

  it('answers queries; one whose retrieval found nothing gets the "no context" answer and asks no model', async () => {
    for (const { query, mode } of questions) {
      const { body, ms, calls, reachedOllama } = await ask({ query, mode });
      row.queries.push(`${mode} ${ms}`);
      report(
        `${label}: ${mode} query in ${ms} ms, ${body.sources.length} sources, no_context ${body.no_context}, ` +
          `model calls ${calls.map((e) => e.task).join(' ') || 'none'} (${reachedOllama} reached Ollama): ${JSON.stringify(body.answer.slice(0, 160))}`,
      );
      expect(typeof body.answer).toBe('string');
      // Every request Ollama answered is a call the service recorded: none failed unseen.
      expect(reachedOllama).toBe(calls.length);
      const answers = calls.filter((e) => e.task === 'answer');
      if (body.no_context) {
        expect(body.answer).toBe(DEFAULT_NO_CONTEXT_RESPONSE);
        expect(body.sources).toEqual([]);
        expect(answers).toEqual([]);
      } else {
        expect(answers).toHaveLength(1);
      }
      // Nothing of a failed document is retrievable.
      if (document.status === 'failed') expect(body.no_context).toBe(true);
    }
  });

  it('answers a question on an empty workspace with the "no context" answer, no model asked', async () => {
    const { body, calls, reachedOllama } = await ask({ query: questions[0].query, mode: 'naive' }, 'empty');
    expect(body).toMatchObject({ no_context: true, answer: DEFAULT_NO_CONTEXT_RESPONSE, sources: [] });
    expect(calls).toEqual([]);
    expect(reachedOllama).toBe(0);
  });

  it('cut no call that was still writing', () => {
    expect(llmCalls().length).toBeGreaterThan(0);
    expect(llmCalls().filter((e) => e.finish_reason === 'timeout')).toEqual([]);
    expect(document.extraction?.timed_out_chunks).toEqual([]);
    expect(chunkHealth.filter((h) => h.finish_reason === 'timeout')).toEqual([]);
    expect(document.error ?? '').not.toMatch(/did not answer within|wrote nothing for|timed out/);
  });

  /** A query through the API, with the LLM calls recorded and the generation requests Ollama answered meanwhile. */
  async function ask(input: { query: string; mode: string }, workspace?: string) {
    const before = { events: events.length, ollama: ollamaGenerations(rt) };
    const started = performance.now();
    const res = await app.request('/api/v1/query', { method: 'POST', json: input, ...(workspace ? { workspace } : {}) });
    const body = (await res.json()) as QueryAnswer;
    const ms = Math.round(performance.now() - started);
    if (res.status !== 200) throw new Error(`query: HTTP ${res.status} ${JSON.stringify(body)}`);
    const calls = events.slice(before.events).filter((e) => e.kind === 'llm');
    // Ollama logs a request once it has sent the last fragment: give its line a moment to be written.
    for (let i = 0; i < 30 && ollamaGenerations(rt) - before.ollama < calls.length; i++) await new Promise((r) => setTimeout(r, 100));
    return { body, ms, calls, reachedOllama: ollamaGenerations(rt) - before.ollama };
  }
});

async function json<T>(app: TestApp, path: string): Promise<T> {
  const res = await app.request(path);
  if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The document once it has left the queue (a short document is usually done on upload). */
async function waitForDocument(app: TestApp, id: string): Promise<DocumentDetail> {
  for (;;) {
    const doc = await json<DocumentDetail>(app, `/api/v1/documents/${id}`);
    if (doc.status === 'completed' || doc.status === 'failed') return doc;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The extraction health of each stored chunk of the document, in chunk order (GET /chunks/:id). */
async function healthOfChunks(app: TestApp, documentId: string): Promise<ExtractionHealth[]> {
  const lineage = await json<{ chunks: Array<{ chunk_id: string; chunk_index: number }> }>(app, `/api/v1/documents/${documentId}/lineage`);
  const chunks = [...lineage.chunks].sort((a, b) => a.chunk_index - b.chunk_index);
  const out: ExtractionHealth[] = [];
  for (const { chunk_id } of chunks) {
    const detail = await json<{ extraction_metadata: { health: ExtractionHealth | null } | null }>(app, `/api/v1/chunks/${chunk_id}`);
    if (!detail.extraction_metadata?.health) throw new Error(`chunk ${chunk_id} has no extraction health`);
    out.push(detail.extraction_metadata.health);
  }
  return out;
}
