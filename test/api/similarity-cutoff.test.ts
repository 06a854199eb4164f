import { cutoffRun, type CutoffRun, QUESTIONS } from '../helpers/cutoff';

/**
 * The similarity cut-off with the offline hashing embedding: a naive query returns the chunk that answers it word
 * for word and none of the unrelated ones. test/real/ runs the same questions with trained embedding models.
 */

let run: CutoffRun;

beforeAll(async () => {
  run = await cutoffRun({});
});

afterAll(async () => {
  await run.app.close();
});

describe('the similarity cut-off (mock embedding)', () => {
  it.each(QUESTIONS)('returns the $topic chunk and no unrelated one', async ({ topic, question }) => {
    const found = await run.naive(question);
    expect(found.map((f) => f.document_id)).toEqual([run.ids[topic]]);
  });
});
