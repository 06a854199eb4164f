import { json } from '../fixtures/documents';
import { type TestApp, startTestApp } from '../helpers/app';
import { type TestRequestInit, workspaceRequest } from '../helpers/request';

/**
 * Fair shares (src/http/middleware/admission.ts): one tenant's graph stream subscribers are capped; those over its
 * share are refused with 429 and Retry-After, while another tenant's subscriptions, reads, uploads and queries are
 * still served, and a closed subscription frees its slot.
 */
jest.setTimeout(60_000);

const PER_TENANT = 3;

let app: TestApp;
type Client = (path: string, init?: TestRequestInit) => Promise<Response>;
let greedy: Client;
let other: Client;
const subscribers: Array<{ controller: AbortController; res?: Response }> = [];

async function tenantClient(name: string): Promise<Client> {
  const made = await app.rt.tenancy.createTenant({ name: `${name} ${Math.random().toString(36).slice(2, 8)}` });
  const key = await app.createApiKey({ role: 'editor', tenantId: made.tenant.id });
  return workspaceRequest(app.url, made.default_workspace.id, { 'X-API-Key': key });
}

beforeAll(async () => {
  app = await startTestApp({
    SERVICE_MAX_GRAPH_STREAMS: '20',
    SERVICE_MAX_GRAPH_STREAMS_PER_TENANT: String(PER_TENANT),
    SERVICE_MAX_GRAPH_STREAMS_PER_WORKSPACE: '10',
  });
  greedy = await tenantClient('Greedy');
  other = await tenantClient('Other');
});

afterAll(async () => {
  for (const { controller } of subscribers) controller.abort();
  await app.close();
});

/** Opens a subscription, held open until the test ends or aborts it; a refusal's body is read by the caller. */
function subscribe(client: Client): Promise<Response> {
  const subscriber: (typeof subscribers)[number] = { controller: new AbortController() };
  subscribers.push(subscriber);
  return client('/api/v1/graph/stream', { headers: { Accept: 'text/event-stream' }, signal: subscriber.controller.signal }).then(
    (res) => (subscriber.res = res),
  );
}

describe('fair shares of graph stream subscribers', () => {
  it("refuses a tenant's subscribers over its share with 429 and Retry-After while another tenant is served", async () => {
    const responses = await Promise.all(Array.from({ length: PER_TENANT * 4 }, () => subscribe(greedy)));
    const statuses = responses.map((res) => res.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(PER_TENANT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(PER_TENANT * 3);
    const refused = responses.find((res) => res.status === 429)!;
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await json(refused)).detail).toMatch(/this tenant has 3 graph stream subscribers in progress/);

    // The other tenant subscribes, reads, uploads and asks as usual; no request with a valid key gets 401.
    expect((await subscribe(other)).status).toBe(200);
    expect((await other('/api/v1/graph')).status).toBe(200);
    const upload = await other('/api/v1/documents', {
      method: 'POST',
      json: { content: 'Ada Lovelace wrote notes on the Analytical Engine of Charles Babbage.' },
    });
    expect(upload.status).toBe(201);
    expect((await json(upload)).status).toBe('completed');
    expect((await other('/api/v1/query', { method: 'POST', json: { query: 'Who wrote notes?', mode: 'bypass' } })).status).toBe(200);
    expect((await greedy('/api/v1/graph/entities')).status).toBe(200);
  });

  it('frees a slot when a subscriber disconnects', async () => {
    expect((await subscribe(greedy)).status).toBe(429);
    const held = subscribers.find((s) => s.res?.status === 200)!;
    held.controller.abort();
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = (await subscribe(greedy)).status;
    }
    expect(status).toBe(200);
  });
});
