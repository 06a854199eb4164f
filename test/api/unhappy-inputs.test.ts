import { form, json, upload } from '../fixtures/documents';
import { type TestApp, startTestApp } from '../helpers/app';

/**
 * Inputs no client should send, each answered with a precise 4xx problem and nothing stored: metadata nested or
 * sized past its bounds, text that is not text (NUL, lone surrogates), forms over their field limits, JSON files
 * nested past what can be read; and names that are one name in two Unicode spellings.
 */
describe('unhappy inputs', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  const create = (body: Record<string, unknown>) =>
    app.request('/api/v1/documents', { method: 'POST', json: { content: 'Ada met Bob.', ...body } });
  const documentCount = async () => ((await json(await app.request('/api/v1/documents?limit=1'))) as { total: number }).total;

  async function expectRefused(res: Response, status: number, field: string | null, text: RegExp): Promise<void> {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const problem = await json(res);
    expect(problem.detail).toMatch(text);
    if (field) expect((problem.errors as Array<{ field: string }>).map((e) => e.field)).toContain(field);
  }

  function nested(depth: number): unknown {
    let value: unknown = 'bottom';
    for (let i = 0; i < depth; i++) value = { inner: value };
    return value;
  }

  it('refuses metadata nested 3,000 deep with 422, not a 500, and stores nothing', async () => {
    const before = await documentCount();
    await expectRefused(await create({ metadata: nested(3000) as Record<string, unknown> }), 422, 'metadata', /deeper than 32 levels/);
    expect(await documentCount()).toBe(before);
  });

  it('refuses metadata over 64 KB, and deep metadata in an upload form, with 422', async () => {
    await expectRefused(await create({ metadata: { blob: 'x'.repeat(70_000) } }), 422, 'metadata', /larger than 64 KB/);
    const res = await upload(app, { name: 'a.txt', data: 'Ada met Bob.', type: 'text/plain' }, { metadata: JSON.stringify(nested(100)) });
    await expectRefused(res, 422, 'metadata', /deeper than 32 levels/);
  });

  it('keeps metadata within the bounds', async () => {
    const res = await create({ metadata: { a: nested(20), note: 'fine' }, content: 'Mary Somerville met Ada.' });
    expect(res.status).toBe(201);
  });

  it.each([
    ['a NUL in a title', { title: 'a\u0000b' }, 'title', /NUL/],
    ['a lone surrogate in a title', { title: 'broken \ud800 title' }, 'title', /surrogate/],
    ['a lone surrogate in metadata', { metadata: { note: '\udc00' } }, 'metadata', /surrogate/],
    ['a lone surrogate in a metadata key', { metadata: { deep: { 'a\ud800b': 1 } } }, 'metadata', /key that contains a lone/],
    ['a lone surrogate in the content', { content: 'Ada \ud83d met Bob.' }, 'content', /surrogate/],
  ])('refuses %s with 422 naming the field', async (_, body, field, text) => {
    const before = await documentCount();
    await expectRefused(await create(body), 422, field, text);
    expect(await documentCount()).toBe(before);
  });

  it('keeps NUL characters inside metadata as sent: metadata is free-form JSON, which escapes them', async () => {
    const metadata = { 'a\u0000b': { note: 'x\u0000y' } };
    const res = await create({ metadata, content: 'Caroline Herschel met William Herschel.' });
    expect(res.status).toBe(201);
    const id = (await json(res)).id as string;
    expect((await json(await app.request(`/api/v1/documents/${id}`))).metadata).toEqual(metadata);
  });

  it('keeps well-formed text beyond the BMP (a surrogate pair)', async () => {
    const res = await create({ title: 'emoji 😀 title', content: 'Grace Hopper met Alan Turing.' });
    expect(res.status).toBe(201);
    expect((await json(res)).title).toBe('emoji 😀 title');
  });

  it.each([
    ['/api/v1/query', { query: 'who is \u0000 Ada?' }],
    ['/api/v1/query', { query: 'who is \ud800 Ada?' }],
  ])('refuses a query that is not text at %s with 422', async (path, body) => {
    await expectRefused(await app.request(path, { method: 'POST', json: body }), 422, 'query', /NUL|surrogate/);
  });

  it('answers a form with too many fields, or too large fields, with a 413 naming the field limit, not the file limit', async () => {
    const fields = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`field_${i}`, 'x']));
    const many = await app.request('/api/v1/documents/upload', {
      method: 'POST',
      body: form('file', [{ name: 'a.txt', data: 'Ada.' }], fields),
    });
    await expectRefused(many, 413, null, /too many form fields: at most 100/);
    const large = await app.request('/api/v1/documents/upload', {
      method: 'POST',
      body: form('file', [{ name: 'a.txt', data: 'Ada.' }], { note: 'x'.repeat(2 * 1024 * 1024 + 10) }),
    });
    await expectRefused(large, 413, null, /form fields too large/);
  });

  it('refuses a .json upload nested too deep with a 422 that names the limit, not an internal error message', async () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const res = await upload(app, { name: 'deep.json', data: deep, type: 'application/json' });
    expect(res.status).toBe(422);
    const problem = await json(res);
    expect(problem.detail).toContain('deeper than 512 levels');
    expect(problem.detail).not.toMatch(/call stack/i);
  });

  it('finds the entity "Café Noir" by its decomposed (NFD) spelling', async () => {
    const composed = 'Café Noir';
    const res = await create({ content: `${composed} is a bar in Paris. Ada Lovelace met Charles Babbage at ${composed}.` });
    expect(res.status).toBe(201);
    const exists = async (name: string) =>
      (await json(await app.request(`/api/v1/graph/entities/exists?name=${encodeURIComponent(name)}`))) as {
        exists: boolean;
        entity_id: string;
      };
    const nfc = await exists(composed);
    expect(nfc.exists).toBe(true);
    const nfd = await exists(composed.normalize('NFD'));
    expect(nfd).toMatchObject({ exists: true, entity_id: nfc.entity_id });
  });
});
