import type { UsageEvent } from '../../src/llm/usage';
import { startTestApp, type TestApp } from '../helpers/app';
import { json } from '../fixtures/documents';

/**
 * Description summaries follow the fragments records gather, not how documents interleave: the same corpus
 * ingested one document at a time and eight at a time makes the same summary calls (in whichever store the
 * test runner provides: memory, or Neo4j through TEST_NEO4J_URI).
 */

const PEOPLE = ['Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Claude Shannon', 'Edsger Dijkstra', 'Barbara Liskov'];
const ORGS = ['Acme Research', 'Globex Labs', 'Initech Systems'];
const PLACES = ['Zurich', 'Lisbon', 'Toronto', 'Kyoto'];

/** Short documents naming a few recurring entities, each fact worded its own way. */
function corpus(count: number): Array<{ title: string; content: string }> {
  return Array.from({ length: count }, (_, i) => {
    const sentences = [0, 1, 2].map((k) => {
      const person = PEOPLE[(i + k) % PEOPLE.length];
      const org = ORGS[(i * 2 + k) % ORGS.length];
      const place = PLACES[(i + 3 * k) % PLACES.length];
      return `${person} worked with ${org} in ${place} on study ${i} part ${k}.`;
    });
    return { title: `Study ${i}`, content: sentences.join(' ') };
  });
}

/** Ingests the corpus in a fresh app with `workers` documents in flight; returns the summary calls made. */
async function summaryCalls(workers: number, documents: Array<{ title: string; content: string }>): Promise<number> {
  const events: UsageEvent[] = [];
  const app: TestApp = await startTestApp(
    {
      WORKER_THREADS: String(workers),
      SERVICE_MOCK_LATENCY_MS: '5',
      SERVICE_SUMMARY_FRAGMENTS: '2',
      SERVICE_SUMMARY_RELATIONSHIP_FRAGMENTS: '2',
      SERVICE_ASYNC_THRESHOLD_BYTES: '1',
      // Which entities resolution merges depends on the order documents land in; the summary calls are what is compared.
      SERVICE_ENTITY_RESOLUTION: 'false',
    },
    { recorder: { record: (e) => events.push(e) } },
  );
  try {
    for (const doc of documents) {
      const res = await app.request('/api/v1/documents', {
        method: 'POST',
        json: { ...doc, async_processing: true, use_llm_summarization: true },
      });
      expect(res.status).toBe(202);
    }
    const deadline = Date.now() + 200_000;
    for (;;) {
      const metrics = await json(await app.request('/api/v1/pipeline/queue-metrics'));
      if (metrics.queue.pending + metrics.queue.running === 0) break;
      if (Date.now() > deadline) throw new Error(`ingestion did not finish: ${JSON.stringify(metrics.queue)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const listed = await json(await app.request('/api/v1/documents?limit=1000'));
    expect(listed.documents.map((d: { status: string }) => d.status)).toEqual(documents.map(() => 'completed'));
    return events.filter((e) => e.kind === 'llm' && e.task === 'summarize' && e.workspace_id === app.workspace).length;
  } finally {
    await app.close();
  }
}

test('the same corpus makes the same summary calls one document at a time and eight at a time', async () => {
  const documents = corpus(20);
  const one = await summaryCalls(1, documents);
  const eight = await summaryCalls(8, documents);
  expect(one).toBeGreaterThan(10);
  expect(eight).toBe(one);
}, 450_000);
