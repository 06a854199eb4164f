import { startTestApp, type TestApp } from '../helpers/app';
import type { UsageEvent } from '../../src/llm/usage';
import { realEnv, realRuntime, report, type RealRuntime } from './runtime';

/**
 * A short real document ingested and queried through real local models (Ollama on the CPU, one thread), through
 * the ordinary `ollama` and `openai` provider types. It asserts behaviour, not quality: the document's status says
 * what happened, every stored entity is named in its source chunk, queries answer, and no call that was still
 * writing was cut by a timeout. Timings and the records kept are printed.
 */

jest.setTimeout(300_000);

const DOCUMENT = {
  title: 'Marie Curie',
  content:
    'Marie Curie was a physicist and chemist who carried out pioneering research on radioactivity. She was born in ' +
    'Warsaw in 1867 and moved to Paris in 1891 to study at the University of Paris. With her husband Pierre Curie ' +
    'she discovered two new elements, polonium and radium. In 1903 she shared the Nobel Prize in Physics with ' +
    'Pierre Curie and Henri Becquerel, and in 1911 she received the Nobel Prize in Chemistry alone. She founded ' +
    'the Radium Institute in Paris, which is now called the Curie Institute.',
};

const QUESTIONS = [
  { query: 'Where was Marie Curie born?', mode: 'naive' },
  { query: 'Which elements did Marie Curie discover with Pierre Curie?', mode: 'hybrid' },
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

let rt: RealRuntime;
beforeAll(() => {
  rt = realRuntime();
});

describe.each(RUNS)('real models: $label', ({ label, llm, questions }) => {
  let app: TestApp;
  const events: UsageEvent[] = [];
  let documentId = '';
  let document: Record<string, unknown> = {};

  beforeAll(async () => {
    app = await startTestApp(realEnv(rt, llm), { recorder: { record: (e) => events.push(e) } });
    const started = performance.now();
    const res = await app.request('/api/v1/documents', { method: 'POST', json: DOCUMENT });
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status >= 300) throw new Error(`upload: HTTP ${res.status} ${JSON.stringify(body)}`);
    documentId = String(body.id);
    document = await waitForDocument(app, documentId);
    const ms = performance.now() - started;
    const chunks = Number(document.chunks_count ?? document.chunk_count ?? 1) || 1;
    report(
      `${label}: document ${String(document.status)} in ${Math.round(ms)} ms, ${chunks} chunk(s), ${Math.round(ms / chunks)} ms per chunk`,
    );
    if (document.health !== undefined) report(`${label}: health ${JSON.stringify(document.health)}`);
    if (document.error) report(`${label}: error ${JSON.stringify(document.error)}`);
  });

  afterAll(async () => {
    const llmCalls = events.filter((e) => e.kind === 'llm');
    const reasons = llmCalls.map((e) => `${e.task ?? 'call'}:${e.finish_reason ?? '-'}:${e.input_tokens}/${e.output_tokens}`);
    report(`${label}: LLM calls (task:finish reason:input/output tokens) ${reasons.join(' ')}`);
    await app?.close();
  });

  it("ends completed or failed, and the document's status says which", () => {
    expect(['completed', 'failed']).toContain(document.status);
  });

  it('stores only entities named in their source chunk', async () => {
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
    report(
      `${label}: records kept: ${entities.entities.length} entities, ${relationships.relationships.length} relationships; ` +
        `entities not named in their chunk: ${ungrounded.length ? ungrounded.join(', ') : 'none'}`,
    );
    expect(ungrounded).toEqual([]);
  });

  it('answers queries', async () => {
    for (const { query, mode } of questions) {
      const started = performance.now();
      const res = await app.request('/api/v1/query', { method: 'POST', json: { query, mode } });
      const body = (await res.json()) as { answer?: unknown; sources?: unknown[] };
      const ms = Math.round(performance.now() - started);
      report(
        `${label}: ${mode} query in ${ms} ms, ${body.sources?.length ?? 0} sources: ${JSON.stringify(String(body.answer).slice(0, 160))}`,
      );
      expect(res.status).toBe(200);
      expect(typeof body.answer).toBe('string');
    }
  });

  it('cut no call that was still writing', () => {
    const llmCalls = events.filter((e) => e.kind === 'llm');
    expect(llmCalls.length).toBeGreaterThan(0);
    expect(llmCalls.filter((e) => e.finish_reason === 'timeout')).toEqual([]);
    expect(JSON.stringify(document.error ?? '')).not.toMatch(/did not answer within|wrote nothing for/);
  });
});

async function json<T>(app: TestApp, path: string): Promise<T> {
  const res = await app.request(path);
  if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The document once it has left the queue (a short document is usually done on upload). */
async function waitForDocument(app: TestApp, id: string): Promise<Record<string, unknown>> {
  for (;;) {
    const doc = await json<Record<string, unknown>>(app, `/api/v1/documents/${id}`);
    if (doc.status === 'completed' || doc.status === 'failed') return doc;
    await new Promise((r) => setTimeout(r, 500));
  }
}
