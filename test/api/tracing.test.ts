import type { TracingConfig } from '../../src/config/types';
import { startTracing } from '../../src/llm/tracing';
import { businessProse } from '../fixtures/costs';
import { json } from '../fixtures/documents';
import { type Received, deadUrl, startReceiver } from '../fixtures/trace-receiver';
import { startService } from '../fixtures/service-process';
import { type TestApp, startTestApp } from '../helpers/app';

const PUBLIC_KEY = 'pk-tracing-public-0001';
const SECRET_KEY = 'sk-tracing-secret-do-not-leak-0002';
const BASIC = `Basic ${Buffer.from(`${PUBLIC_KEY}:${SECRET_KEY}`).toString('base64')}`;

function capturingLog() {
  const lines: string[] = [];
  const log = (obj: object, msg?: string) => lines.push(JSON.stringify(obj) + (msg ?? ''));
  return { lines, log: { info: log, warn: log } };
}

function tracingConfig(baseUrl: string, extra: Partial<TracingConfig> = {}): TracingConfig {
  return { enabled: true, publicKey: PUBLIC_KEY, secretKey: SECRET_KEY, baseUrl, projectId: null, api: 'auto', ...extra };
}

/** The secret in clear anywhere: bodies, paths, headers other than the Basic credentials. */
function leaks(received: Received[], logged: string[]): string[] {
  const out: string[] = [];
  for (const r of received) {
    const headers = { ...r.headers, authorization: undefined };
    if (`${r.path}${r.body}${JSON.stringify(headers)}`.includes(SECRET_KEY)) out.push(`${r.method} ${r.path}`);
  }
  for (const line of logged) if (line.includes(SECRET_KEY)) out.push(line);
  return out;
}

describe('trace export: the start-up probe', () => {
  it('selects the ingestion API when the OTLP endpoint answers 404, and fetches the project id once', async () => {
    const receiver = await startReceiver({ otlp: 404, projectId: 'project-42' });
    const { lines, log } = capturingLog();
    try {
      const tracing = await startTracing(tracingConfig(receiver.url), '0.0.0', log);
      await tracing.shutdown();
      expect(tracing.status).toEqual({
        export_active: true,
        base_url: receiver.url,
        api: 'auto',
        api_resolved: 'ingestion',
        project_id: 'project-42',
      });
      expect(receiver.received.map((r) => `${r.method} ${r.path}`)).toEqual([
        'POST /api/public/otel/v1/traces',
        'GET /api/public/projects',
      ]);
      expect(receiver.received.every((r) => r.headers.authorization === BASIC)).toBe(true);
      expect(leaks(receiver.received, lines)).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('selects OTLP for any other answer; a configured project id is not fetched; a chosen API is not probed', async () => {
    const receiver = await startReceiver({ otlp: 200 });
    const { lines, log } = capturingLog();
    try {
      const auto = await startTracing(tracingConfig(receiver.url, { projectId: 'configured' }), '0.0.0', log);
      await auto.shutdown();
      expect(auto.status).toMatchObject({ api: 'auto', api_resolved: 'otlp', project_id: 'configured' });
      expect(receiver.received.map((r) => r.path)).toEqual(['/api/public/otel/v1/traces']);
      const chosen = await startTracing(tracingConfig(receiver.url, { api: 'ingestion', projectId: 'p' }), '0.0.0', log);
      await chosen.shutdown();
      expect(chosen.status.api_resolved).toBe('ingestion');
      expect(receiver.received).toHaveLength(1);
      expect(leaks(receiver.received, lines)).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('selects OTLP when the backend does not answer, says so, and exports nothing without keys', async () => {
    const url = await deadUrl();
    const { lines, log } = capturingLog();
    const down = await startTracing(tracingConfig(url), '0.0.0', log);
    await down.shutdown();
    expect(down.status).toMatchObject({ export_active: true, api_resolved: 'otlp', project_id: null });
    expect(lines.some((l) => l.includes('did not answer the OTLP probe'))).toBe(true);
    expect(leaks([], lines)).toEqual([]);
    const off = await startTracing({ ...tracingConfig(url), enabled: false, publicKey: null, secretKey: null }, '0.0.0', log);
    expect(off.status).toMatchObject({ export_active: false, api_resolved: null });
  });
});

interface Node {
  id: string;
  parent: string | null;
  name: string;
  generation: boolean;
  input_tokens?: number;
  output_tokens?: number;
}

/** The spans of the ingestion API's batches. */
function ingestionNodes(received: Received[]): { nodes: Node[]; traces: string[]; bodies: string } {
  const nodes: Node[] = [];
  const traces: string[] = [];
  const batches = received.filter((r) => r.path === '/api/public/ingestion');
  for (const r of batches) {
    for (const event of JSON.parse(r.body).batch as Array<{ type: string; body: Record<string, any> }>) {
      if (event.type === 'trace-create') traces.push(event.body.name);
      else
        nodes.push({
          id: event.body.id,
          parent: event.body.parentObservationId,
          name: event.body.name,
          generation: event.type === 'generation-create',
          input_tokens: event.body.usage?.input,
          output_tokens: event.body.usage?.output,
        });
    }
  }
  return { nodes, traces, bodies: batches.map((b) => b.body).join('\n') };
}

/** The spans of the OTLP JSON exports. */
function otlpNodes(received: Received[]): Node[] {
  const nodes: Node[] = [];
  for (const r of received.filter(
    (x) => x.path === '/api/public/otel/v1/traces' && x.body.includes('resourceSpans') && x.body.length > 30,
  )) {
    for (const rs of JSON.parse(r.body).resourceSpans)
      for (const ss of rs.scopeSpans)
        for (const span of ss.spans) {
          const attrs = Object.fromEntries(
            (span.attributes as Array<{ key: string; value: Record<string, unknown> }>).map((a) => [a.key, Object.values(a.value)[0]]),
          );
          nodes.push({
            id: span.spanId,
            parent: span.parentSpanId || null,
            name: span.name,
            generation: attrs['langfuse.observation.type'] === 'generation',
            input_tokens: attrs['gen_ai.usage.input_tokens'] === undefined ? undefined : Number(attrs['gen_ai.usage.input_tokens']),
            output_tokens: attrs['gen_ai.usage.output_tokens'] === undefined ? undefined : Number(attrs['gen_ai.usage.output_tokens']),
          });
        }
  }
  return nodes;
}

/** Checks the span tree of one ingestion and one query. */
function expectTreeShape(nodes: Node[]) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const parentName = (n: Node) => (n.parent ? byId.get(n.parent)?.name : null);
  const named = (name: string) => nodes.filter((n) => n.name === name);
  const [doc] = named('ingest.document');
  expect(doc).toBeDefined();
  expect(doc.parent).toBeNull();
  expect(named('ingest.extract_chunk').length).toBeGreaterThan(0);
  for (const n of named('ingest.extract_chunk')) expect(parentName(n)).toBe('ingest.document');
  for (const n of [...named('ingest.merge'), ...named('ingest.embed')]) expect(parentName(n)).toBe('ingest.document');
  const extractions = named('llm.extract');
  expect(extractions.length).toBeGreaterThan(0);
  for (const n of extractions) {
    expect(parentName(n)).toBe('ingest.extract_chunk');
    expect(n.generation).toBe(true);
    expect(n.input_tokens).toBeGreaterThan(0);
    expect(n.output_tokens).toBeGreaterThan(0);
  }
  const [query] = named('query');
  expect(query.parent).toBeNull();
  expect(parentName(named('query.retrieve')[0])).toBe('query');
  for (const step of ['query.keywords', 'query.embed', 'query.vector_search', 'query.graph_expansion', 'query.rerank']) {
    expect([step, parentName(named(step)[0])]).toEqual([step, 'query.retrieve']);
  }
  expect(parentName(named('llm.keywords')[0])).toBe('query.keywords');
  const [generate] = named('query.generate');
  expect(parentName(generate)).toBe('query');
  const [answer] = named('llm.answer');
  expect(parentName(answer)).toBe('query.generate');
  expect(answer.generation).toBe(true);
  expect(answer.output_tokens).toBeGreaterThan(0);
  // Embedding calls are spans, not generations.
  expect(named('embedding').every((n) => !n.generation)).toBe(true);
}

describe('trace export through the ingestion API (the OTLP endpoint answers 404)', () => {
  let app: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const logged: string[] = [];
  beforeAll(async () => {
    receiver = await startReceiver({ otlp: 404 });
    app = await startTestApp({ TRACING_PUBLIC_KEY: PUBLIC_KEY, TRACING_SECRET_KEY: SECRET_KEY, TRACING_HOST: receiver.url });
    for (const level of ['info', 'warn', 'error', 'debug'] as const) {
      jest.spyOn(app.rt.log, level).mockImplementation(((...args: unknown[]) => {
        logged.push(JSON.stringify(args));
      }) as never);
    }
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await receiver?.close();
  });

  it('reports the resolved configuration without the secret', async () => {
    const settings = await app.request('/api/v1/settings/tracing');
    expect(settings.status).toBe(200);
    expect(await json(settings)).toEqual({
      export_active: true,
      base_url: receiver.url,
      api: 'auto',
      api_resolved: 'ingestion',
      project_id: 'project-1',
    });
    const health = await json(await app.request('/health'));
    expect(health.operational.observability).toEqual({
      tracing_export_active: true,
      tracing_api: 'auto',
      tracing_api_resolved: 'ingestion',
    });
    const viewer = await app.createApiKey({ role: 'viewer' });
    expect((await app.request('/api/v1/settings/tracing', { headers: { 'X-API-Key': viewer } })).status).toBe(403);
  });

  it('exports the span tree of one ingestion and one query as traces, spans and generations, never a cost or the secret', async () => {
    const created = await app.request('/api/v1/documents', { method: 'POST', json: { content: businessProse(3), title: 'traced' } });
    expect(created.status).toBe(201);
    const answered = await app.request('/api/v1/query', { method: 'POST', json: { query: 'Who joined Acme Corporation?', mode: 'mix' } });
    expect(answered.status).toBe(200);
    await app.close();

    const { nodes, traces, bodies } = ingestionNodes(receiver.received);
    expect(traces).toEqual(expect.arrayContaining(['ingest.document', 'query']));
    expectTreeShape(nodes);
    expect(bodies).not.toMatch(/cost/i);
    expect(receiver.received.every((r) => r.headers.authorization === BASIC)).toBe(true);
    expect(leaks(receiver.received, logged)).toEqual([]);
    expect(logged.length).toBeGreaterThan(0);
  });
});

describe('trace export through OTLP (the real service in a child process)', () => {
  it('sends OpenTelemetry spans with the span tree of one ingestion and one query, flushed at shutdown', async () => {
    const receiver = await startReceiver({ otlp: 200 });
    try {
      const service = await startService('tracing-otlp', null, {
        TRACING_PUBLIC_KEY: PUBLIC_KEY,
        TRACING_SECRET_KEY: SECRET_KEY,
        TRACING_BASE_URL: receiver.url,
      });
      try {
        const settings = await json(await service.request('/api/v1/settings/tracing'));
        expect(settings).toMatchObject({ export_active: true, api: 'auto', api_resolved: 'otlp', project_id: 'project-1' });
        const created = await service.request('/api/v1/documents', {
          method: 'POST',
          json: { content: businessProse(3), title: 'traced' },
        });
        expect(created.status).toBe(201);
        expect(
          (await service.request('/api/v1/query', { method: 'POST', json: { query: 'Who joined Acme Corporation?', mode: 'mix' } })).status,
        ).toBe(200);
      } finally {
        await service.kill('SIGTERM');
      }
      const nodes = otlpNodes(receiver.received);
      expectTreeShape(nodes);
      expect(receiver.received.filter((r) => r.path === '/api/public/ingestion')).toEqual([]);
      const exports = receiver.received.filter((r) => r.path === '/api/public/otel/v1/traces');
      expect(exports.every((r) => r.headers.authorization === BASIC)).toBe(true);
      expect(exports.map((r) => r.body).join('\n')).not.toMatch(/cost/i);
      expect(
        leaks(
          receiver.received,
          service.logs.map((l) => JSON.stringify(l)),
        ),
      ).toEqual([]);
      expect(service.logs.some((l) => l.msg.includes('traces are exported'))).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});

describe('trace export to a backend that is down', () => {
  it('leaves ingestion, queries and health unaffected, and says that export failed', async () => {
    const app = await startTestApp({
      TRACING_PUBLIC_KEY: PUBLIC_KEY,
      TRACING_SECRET_KEY: SECRET_KEY,
      TRACING_BASE_URL: await deadUrl(),
      SERVICE_TRACING_API: 'ingestion',
    });
    const warnings: string[] = [];
    jest.spyOn(app.rt.log, 'warn').mockImplementation(((obj: object, msg?: string) => {
      warnings.push(JSON.stringify(obj) + (msg ?? ''));
    }) as never);
    try {
      const created = await app.request('/api/v1/documents', { method: 'POST', json: { content: businessProse(2), title: 'untraced' } });
      expect(created.status).toBe(201);
      expect((await json(created)).status).toBe('completed');
      expect((await app.request('/api/v1/query', { method: 'POST', json: { query: 'Who joined Acme Corporation?' } })).status).toBe(200);
      const health = await json(await app.request('/health'));
      expect(health.status).toBe('healthy');
      expect(health.operational.observability).toMatchObject({
        tracing_export_active: true,
        tracing_api: 'ingestion',
        tracing_api_resolved: 'ingestion',
      });
    } finally {
      await app.close();
      jest.restoreAllMocks();
    }
    expect(warnings.some((w) => w.includes('trace export failed'))).toBe(true);
    expect(leaks([], warnings)).toEqual([]);
  });
});
