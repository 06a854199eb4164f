import { startTestApp, type TestApp } from '../helpers/app';
import { form, json, prose, storedCounts } from '../fixtures/documents';

describe('JSON documents (POST /documents, GET, list, metadata)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  const create = (body: unknown, workspace?: string) => app.request('/api/v1/documents', { method: 'POST', json: body, workspace });

  it('processes small JSON text within the request and answers 201 with the counts', async () => {
    const res = await create({ content: prose('alpha'), title: 'Alpha notes', metadata: { team: 'blue' }, track_id: 'trk-1' });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body).toMatchObject({ title: 'Alpha notes', status: 'completed', error: null, track_id: 'trk-1' });
    expect(body.content_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(body.chunk_count).toBeGreaterThanOrEqual(1);
    expect(body.entity_count).toBeGreaterThan(0);
    expect(body.relationship_count).toBeGreaterThan(0);
    expect(Number.isInteger(body.processing_time_ms)).toBe(true);
    expect(Date.parse(body.created_at)).not.toBeNaN();

    const detail = await json(await app.request(`/api/v1/documents/${body.id}`));
    expect(detail).toMatchObject({
      id: body.id,
      title: 'Alpha notes',
      status: 'completed',
      content_hash: body.content_hash,
      chunk_count: body.chunk_count,
      entity_count: body.entity_count,
      relationship_count: body.relationship_count,
      file_path: `text://${body.id}`,
      file_size: Buffer.byteLength(prose('alpha')),
      error: null,
      track_id: 'trk-1',
      metadata: { team: 'blue' },
    });
    expect(typeof detail.task_id).toBe('string');
    expect(Date.parse(detail.updated_at)).not.toBeNaN();
  });

  it('answers 202 with a task id when async_processing is true', async () => {
    const res = await create({ content: prose('queued-one'), async_processing: true, track_id: 'trk-async' });
    expect(res.status).toBe(202);
    const body = await json(res);
    expect(body).toMatchObject({ status: 'processing', track_id: 'trk-async' });
    expect(typeof body.task_id).toBe('string');
    expect(body.message).toMatch(/queued/);
  });

  it('takes the title from the first line and the file path from source when not given', async () => {
    const content = `# Field report\n\n${prose('beta')}`;
    const body = await json(await create({ content, source: 'notes/field-report.md' }));
    const detail = await json(await app.request(`/api/v1/documents/${body.id}`));
    expect(detail.title).toBe('Field report');
    expect(detail.file_path).toBe('notes/field-report.md');
    expect(detail.source).toBe('notes/field-report.md');
  });

  it('serves flat metadata with the checksum, sizes, models and the custom metadata', async () => {
    const body = await json(await create({ content: prose('gamma'), metadata: { owner: 'ops', tags: ['a'] } }));
    const res = await app.request(`/api/v1/documents/${body.id}/metadata`);
    expect(res.status).toBe(200);
    const meta = await json(res);
    expect(meta).toMatchObject({
      id: body.id,
      document_type: 'text',
      status: 'completed',
      sha256_checksum: body.content_hash.replace('sha256:', ''),
      file_size_bytes: Buffer.byteLength(prose('gamma')),
      chunk_count: body.chunk_count,
      custom: { owner: 'ops', tags: ['a'] },
    });
    expect(typeof meta.llm_model).toBe('string');
    expect(typeof meta.embedding_model).toBe('string');
    expect(Date.parse(meta.processed_at)).not.toBeNaN();
    expect(meta).not.toHaveProperty('page_count');
    expect(meta).not.toHaveProperty('pdf_id');
  });

  it('refuses the same content again with 409 conflict naming duplicate_of, storing nothing', async () => {
    const first = await json(await create({ content: prose('delta') }));
    const before = await storedCounts(app);
    const res = await create({ content: prose('delta'), title: 'another title' });
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    const problem = await json(res);
    expect(problem).toMatchObject({ status: 409, title: 'Conflict', duplicate_of: first.id });
    expect(problem.type).toMatch(/\/conflict$/);
    expect(await storedCounts(app)).toEqual(before);
  });

  it('accepts the same content in another workspace', async () => {
    const res = await create({ content: prose('delta') }, `${app.workspace}-other`);
    expect(res.status).toBe(201);
  });

  describe('refused input leaves nothing behind', () => {
    const cases: Array<[string, () => Promise<Response>, number, RegExp]> = [
      [
        'malformed JSON',
        () => app.request('/api/v1/documents', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"content": ' }),
        400,
        /failed to parse the request body as JSON/,
      ],
      [
        'a multipart body',
        () => app.request('/api/v1/documents', { method: 'POST', body: form('file', [{ name: 'a.txt', data: 'hello' }]) }),
        400,
        /expects Content-Type: application\/json/,
      ],
      ['a body without content', () => create({ title: 'no content' }), 422, /^content: required$/],
      ['empty content', () => create({ content: '   ' }), 422, /content: must not be empty/],
      ['max_gleaning out of range', () => create({ content: prose('x1'), max_gleaning: 9 }), 422, /max_gleaning/],
      ['metadata that is not an object', () => create({ content: prose('x2'), metadata: [1, 2] }), 422, /metadata/],
      ['content over 10 MB', () => create({ content: 'a'.repeat(10 * 1024 * 1024 + 1) }), 413, /limit 10 MB/],
    ];
    it.each(cases)('refuses %s with the right problem', async (_name, send, status, detail) => {
      const before = await storedCounts(app);
      const res = await send();
      expect(res.status).toBe(status);
      const problem = await json(res);
      expect(problem.status).toBe(status);
      expect(problem.detail).toMatch(detail);
      expect(problem.instance).toBe('/api/v1/documents');
      expect(await storedCounts(app)).toEqual(before);
    });
  });

  it('answers 404 Resource Not Found naming the id and the workspace', async () => {
    for (const path of ['/api/v1/documents/nope', '/api/v1/documents/nope/metadata', '/api/v1/documents/nope/deletion-impact']) {
      const res = await app.request(path);
      expect(res.status).toBe(404);
      const problem = await json(res);
      expect(problem.title).toBe('Resource Not Found');
      expect(problem.detail).toContain("'nope'");
      expect(problem.detail).toContain(app.workspace);
    }
    const del = await app.request('/api/v1/documents/nope', { method: 'DELETE' });
    expect(del.status).toBe(404);
  });

  it('hides documents of other workspaces', async () => {
    const body = await json(await create({ content: prose('private') }));
    const res = await app.request(`/api/v1/documents/${body.id}`, { workspace: `${app.workspace}-else` });
    expect(res.status).toBe(404);
  });
});

describe('GET /documents filters and pagination', () => {
  let app: TestApp;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    app = await startTestApp();
    for (const title of ['Quarterly Finance', 'Engineering Roadmap', 'finance memo', 'Travel Plan']) {
      const res = await app.request('/api/v1/documents', { method: 'POST', json: { content: prose(title), title } });
      ids[title] = (await json(res)).id;
      // Distinct creation instants keep the newest-first order deterministic.
      await new Promise((r) => setTimeout(r, 5));
    }
    // One failed document, to filter by status.
    const failed = await app.request('/api/v1/documents', { method: 'POST', json: { content: prose('failing'), title: 'Broken' } });
    ids.Broken = (await json(failed)).id;
    await app.rt.stores.documents.update({ workspaceId: app.workspace }, ids.Broken, { status: 'failed', error: 'boom' });
  });
  afterAll(async () => {
    await app.close();
  });

  const list = async (qs: string) => {
    const res = await app.request(`/api/v1/documents${qs}`);
    return { status: res.status, body: await json(res) };
  };

  it('lists newest first with total, limit and offset', async () => {
    const { status, body } = await list('');
    expect(status).toBe(200);
    expect(body).toMatchObject({ total: 5, limit: 50, offset: 0 });
    expect(body.documents.map((d: { title: string }) => d.title)).toEqual([
      'Broken',
      'Travel Plan',
      'finance memo',
      'Engineering Roadmap',
      'Quarterly Finance',
    ]);
    // The spec's list item, and the names EdgeQuake's clients read beside it.
    expect(Object.keys(body.documents[0]).sort()).toEqual([
      'chunk_count',
      'created_at',
      'entity_count',
      'error_message',
      'file_size',
      'id',
      'relationship_count',
      'status',
      'title',
      'track_id',
      'updated_at',
      'warnings',
    ]);
  });

  it('pages with limit and offset', async () => {
    const { body } = await list('?limit=2&offset=1');
    expect(body.total).toBe(5);
    expect(body.documents.map((d: { title: string }) => d.title)).toEqual(['Travel Plan', 'finance memo']);
  });

  it('filters by status', async () => {
    expect((await list('?status=failed')).body.documents.map((d: { id: string }) => d.id)).toEqual([ids.Broken]);
    expect((await list('?status=completed')).body.total).toBe(4);
    expect((await list('?status=all')).body.total).toBe(5);
  });

  it('matches any comma-separated title term, case-insensitively', async () => {
    const { body } = await list('?document_pattern=FINANCE,%20roadmap');
    expect(body.documents.map((d: { title: string }) => d.title).sort()).toEqual([
      'Engineering Roadmap',
      'Quarterly Finance',
      'finance memo',
    ]);
  });

  it('filters by creation date range', async () => {
    const today = new Date().toISOString().slice(0, 10);
    expect((await list(`?date_from=${today}&date_to=${today}`)).body.total).toBe(5);
    expect((await list('?date_to=2000-01-01')).body.total).toBe(0);
    expect((await list('?date_from=2999-01-01')).body.total).toBe(0);
  });

  it.each([
    ['?limit=0', /limit/],
    ['?limit=1001', /limit/],
    ['?offset=-1', /offset/],
    ['?status=done', /status/],
    ['?date_from=yesterday', /date_from: must be an ISO 8601 date/],
    ['?date_to=2024-13-45', /date_to/],
  ])('refuses %s with 422', async (qs, detail) => {
    const { status, body } = await list(qs);
    expect(status).toBe(422);
    expect(body.detail).toMatch(detail);
  });
});
