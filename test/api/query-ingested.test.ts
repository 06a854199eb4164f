import { startTestApp, type TestApp } from '../helpers/app';

/** Queries over a knowledge base built by the real ingestion pipeline through the documents API. */

let app: TestApp;
const ids: Record<string, string> = {};

const DOCUMENTS = {
  acme: {
    title: 'Acme annual report',
    content:
      'Alice Smith works at Acme Corporation as chief scientist.\nAcme Corporation is headquartered in Berlin.\n' +
      'Acme Corporation builds graph databases for banks in Berlin.',
  },
  globex: {
    title: 'Globex research notes',
    content:
      'Bob Jones leads Globex Laboratories.\nGlobex Laboratories studies quantum computing in Tokyo.\n' +
      'Quantum computing at Globex Laboratories uses superconducting qubits.',
  },
  travel: {
    title: 'Travel diary: Paris',
    content: 'The Louvre Museum in Paris holds the Mona Lisa.\nParis museums open late on Fridays near the Seine.',
  },
};

beforeAll(async () => {
  app = await startTestApp();
  for (const [key, doc] of Object.entries(DOCUMENTS)) {
    const res = await app.request('/api/v1/documents', { method: 'POST', json: doc });
    expect(res.status).toBeLessThan(300);
    const body = (await res.json()) as { id: string; status: string };
    expect(body.status).toBe('completed');
    ids[key] = body.id;
  }
});

afterAll(async () => {
  await app.close();
});

async function ask(json: Record<string, unknown>) {
  const res = await app.request('/api/v1/query', { method: 'POST', json });
  expect(res.status).toBe(200);
  return (await res.json()) as { answer: string; sources: Array<{ source_type: string; document_id?: string; id: string }> };
}

const documentsOf = (sources: Array<{ source_type: string; document_id?: string }>) =>
  new Set(sources.filter((s) => s.source_type === 'chunk').map((s) => s.document_id));

describe('POST /query over ingested documents', () => {
  it.each(['naive', 'local', 'global', 'hybrid', 'mix'])('finds the document that answers, in %s mode', async (mode) => {
    const body = await ask({ query: 'Where is Acme Corporation headquartered?', mode });
    expect(documentsOf(body.sources).has(ids.acme)).toBe(true);
    expect(body.answer).toContain('Berlin');
  });

  it('brings the extracted entities as entity sources in local mode', async () => {
    const body = await ask({ query: 'Who leads Globex Laboratories?', mode: 'local' });
    expect(body.sources.some((s) => s.source_type === 'entity' && /GLOBEX/.test(s.id))).toBe(true);
  });

  it('a title pattern keeps only matching documents; a date range keeps only documents created inside it', async () => {
    const pattern = await ask({
      query: 'Acme Corporation Globex quantum Paris',
      mode: 'mix',
      document_filter: { document_pattern: 'research' },
    });
    expect(documentsOf(pattern.sources)).toEqual(new Set([ids.globex]));
    const dated = await ask({ query: 'Where is Acme Corporation headquartered?', document_filter: { date_to: '2000-01-01' } });
    expect(dated.sources).toEqual([]);
    expect(dated.answer).toMatch(/no information/i);
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const current = await ask({
      query: 'Where is Acme Corporation headquartered?',
      document_filter: { date_from: day(-1), date_to: day(1) },
    });
    expect(documentsOf(current.sources).has(ids.acme)).toBe(true);
  });

  it('no longer finds a deleted document', async () => {
    expect((await app.request(`/api/v1/documents/${ids.travel}`, { method: 'DELETE' })).status).toBe(204);
    const body = await ask({ query: 'Which museum in Paris holds the Mona Lisa?', mode: 'mix' });
    expect(documentsOf(body.sources).has(ids.travel)).toBe(false);
  });
});
