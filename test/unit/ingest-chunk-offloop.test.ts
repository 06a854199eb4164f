import { readFileSync } from 'node:fs';
import path from 'node:path';
import { chunkText } from '../../src/ingest/chunk/chunker';
import { chunkTextOffLoop, OFF_LOOP_MIN_CHARS } from '../../src/ingest/offload/chunk';
import { WorkerCpuPool } from '../../src/ingest/offload/worker-pool';

/** A long text from the repository's own documentation, with code fences, tables and lists. */
function fixtureText(): string {
  const readme = readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');
  let text = '';
  for (let i = 0; text.length < 4 * OFF_LOOP_MIN_CHARS; i++) text += `## Copy ${i}\n\n${readme}\n`;
  return text;
}

const cpu = new WorkerCpuPool();
afterAll(() => cpu.close());

describe('chunkTextOffLoop', () => {
  test('gives the same chunks in a worker thread as chunkText on the event loop', async () => {
    const text = fixtureText();
    const options = { chunkTokens: 300, overlapTokens: 40 };
    const expected = chunkText(text, options);
    expect(expected.length).toBeGreaterThan(50);
    expect(await chunkTextOffLoop(cpu, text, options)).toEqual(expected);
  });

  test('keeps the pages of every chunk when a page map is given', async () => {
    const text = fixtureText();
    const pages = [];
    for (let start = 0, page = 1; start < text.length; start += 5000, page++) {
      pages.push({ page, char_start: start, char_end: Math.min(text.length, start + 4998) });
    }
    const options = { chunkTokens: 500, overlapTokens: 50, pages };
    const chunks = await chunkTextOffLoop(cpu, text, options);
    expect(chunks).toEqual(chunkText(text, options));
    expect(chunks.at(-1)?.page_end).toBe(pages.length);
  });

  test('answers several texts at once, each with its own chunks', async () => {
    const base = fixtureText();
    const texts = [base, base.toUpperCase(), base.replace(/e/g, 'é'), `${base}\n\n${base}`];
    const results = await Promise.all(texts.map((t) => chunkTextOffLoop(cpu, t, { chunkTokens: 400, overlapTokens: 0 })));
    results.forEach((chunks, i) => expect(chunks).toEqual(chunkText(texts[i], { chunkTokens: 400, overlapTokens: 0 })));
  });

  test('rejects bad options from the worker with the chunker own error', async () => {
    await expect(chunkTextOffLoop(cpu, fixtureText(), { chunkTokens: 10, overlapTokens: 10 })).rejects.toMatchObject({
      name: 'RangeError',
      message: expect.stringContaining('overlapTokens') as unknown,
    });
  });
});
