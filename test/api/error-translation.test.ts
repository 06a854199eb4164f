import type { TestApp } from '../helpers/app';
import { startSeededApp } from '../helpers/seeded-app';
import { jsonEvents, readSse } from '../unit/retrieval-fixtures';

let app: TestApp;
let search: TestApp['rt']['stores']['vectors']['search'];
let chunkHits: NonNullable<TestApp['rt']['stores']['retrieval']>['chunkHits'] | undefined;

beforeAll(async () => {
  app = await startSeededApp();
  const { vectors, retrieval } = app.rt.stores;
  search = vectors.search.bind(vectors);
  chunkHits = retrieval?.chunkHits.bind(retrieval);
});

afterEach(() => {
  const { vectors, retrieval } = app.rt.stores;
  vectors.search = search;
  if (retrieval && chunkHits) retrieval.chunkHits = chunkHits;
});

afterAll(async () => {
  await app.close();
});

const question = { query: 'Where is Acme Corporation headquartered in Berlin?', mode: 'naive' };

async function answers(failure: Error) {
  const fail = async (): Promise<never> => {
    throw failure;
  };
  // The vector search fails, whichever way the store reaches it: composed from the vector store (embedded) or
  // joined with the records in one statement (Neo4j).
  app.rt.stores.vectors.search = fail;
  if (app.rt.stores.retrieval) app.rt.stores.retrieval.chunkHits = fail;
  const json = await app.request('/api/v1/query', { method: 'POST', json: question });
  const streamed = await app.request('/api/v1/query/stream', { method: 'POST', json: question, headers: { Accept: 'text/event-stream' } });
  expect(streamed.status).toBe(200);
  const events = jsonEvents(await readSse(streamed));
  return { json, problem: (await json.json()) as Record<string, unknown>, event: events[events.length - 1] };
}

describe('a failure answers the same on JSON routes and SSE streams', () => {
  it('a storage outage is a 503 problem on /query and the same problem in the stream error event', async () => {
    const { json, problem, event } = await answers(Object.assign(new Error('connection lost'), { code: 'ServiceUnavailable' }));
    expect(json.status).toBe(503);
    expect(json.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(event).toEqual({
      type: 'error',
      error: { type: problem.type, title: problem.title, status: 503, detail: problem.detail },
    });
  });

  it('an unknown error is a 500 quoting the request id in both, its message never shown', async () => {
    const { json, problem, event } = await answers(new Error('secret internal state'));
    expect(json.status).toBe(500);
    expect(problem.detail).toMatch(/request id/);
    expect(JSON.stringify(problem)).not.toMatch(/secret internal state/);
    const error = event.error as Record<string, unknown>;
    expect(event.type).toBe('error');
    expect(error).toMatchObject({ type: problem.type, title: problem.title, status: 500 });
    expect(error.detail).toMatch(/request id/);
    expect(JSON.stringify(event)).not.toMatch(/secret internal state/);
  });
});
