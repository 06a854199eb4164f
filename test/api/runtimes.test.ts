import { type TestApp, startTestApp } from '../helpers/app';
import { CountingStore, ask, echoLlm } from '../fixtures/echo-llm';
import { startReceiver } from '../fixtures/trace-receiver';

describe('two runtimes in one process', () => {
  let first: TestApp;
  let second: TestApp;
  const scope = { workspaceId: 'runtimes' };

  beforeAll(async () => {
    first = await startTestApp({ SERVICE_LLM_CONCURRENCY: '1' }, { start: false });
    second = await startTestApp({ SERVICE_LLM_CONCURRENCY: '1' }, { start: false });
  });
  afterAll(async () => {
    await second.close();
  });

  it('do not share call slots: one runtime whose slots are all taken leaves the other answering', async () => {
    const release = await first.rt.slots.llm.acquire();
    try {
      expect(first.rt.slots.llm.inFlight).toBe(1);
      const answer = await second.rt.providers.llm().complete([{ role: 'user', content: 'Who founded Acme?' }]);
      expect(answer.text.length).toBeGreaterThan(0);
      expect(second.rt.slots.llm.inFlight).toBe(0);
    } finally {
      release();
    }
  });

  it("closing one writes its waiting cache entries and leaves the other's cache working", async () => {
    const kv = new CountingStore();
    const { llm, calls } = echoLlm();
    await ask(first.rt.llmCache.wrap(llm, kv, scope), 'first');
    // The entry waits for others to be written with; the other runtime's cache knows nothing of it.
    expect(kv.writes).toHaveLength(0);
    expect(await ask(second.rt.llmCache.wrap(llm, kv, scope), 'first')).not.toHaveProperty('cached');
    expect(calls).toEqual(['first', 'first']);

    await first.close();
    expect(kv.writes.flat().map(([, value]) => (value as { text: string }).text)).toContain('answer to first');

    const cached = second.rt.llmCache.wrap(llm, kv, scope);
    await ask(cached, 'second');
    expect(await ask(cached, 'second')).toMatchObject({ text: 'answer to second', cached: true });
    expect(calls).toEqual(['first', 'first', 'second']);
    await second.rt.llmCache.settle();
    expect(await kv.count(scope, 'llm_response')).toBe(2);
  });
});

describe('two runtimes in one process, one traced', () => {
  it("sends each runtime's spans to its own tracing backend only", async () => {
    const receiver = await startReceiver({ otlp: 404 });
    const traced = await startTestApp({ TRACING_PUBLIC_KEY: 'pk-runtimes', TRACING_SECRET_KEY: 'sk-runtimes', TRACING_HOST: receiver.url });
    const untraced = await startTestApp();
    try {
      const query = { method: 'POST', json: { query: 'Who founded Acme?', mode: 'naive' } } as const;
      expect((await untraced.request('/api/v1/query', query)).status).toBe(200);
      expect((await traced.request('/api/v1/query', query)).status).toBe(200);
      expect((await untraced.request('/api/v1/query', query)).status).toBe(200);
    } finally {
      await untraced.close();
      await traced.close();
      await receiver.close();
    }
    const traces = receiver.received
      .filter((r) => r.path === '/api/public/ingestion')
      .flatMap((r) => (JSON.parse(r.body) as { batch: Array<{ type: string; body: { name: string } }> }).batch)
      .filter((event) => event.type === 'trace-create')
      .map((event) => event.body.name);
    expect(traces).toEqual(['query']);
  });
});
