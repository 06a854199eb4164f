import { startTestApp, type TestApp } from '../helpers/app';
import { form, json, prose, storedCounts, upload, waitForTask } from '../fixtures/documents';
import { buildPdf, corruptPdf } from '../fixtures/pdf';

const MB = 1024 * 1024;

describe('file upload (POST /documents/upload)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('ingests a text file with the filename as title and path', async () => {
    const res = await upload(app, { name: 'meeting.txt', data: prose('upload-a'), type: 'text/plain' }, { metadata: '{"kind":"minutes"}' });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body).toMatchObject({ title: 'meeting.txt', status: 'completed' });
    expect(body.chunk_count).toBeGreaterThanOrEqual(1);
    const detail = await json(await app.request(`/api/v1/documents/${body.id}`));
    expect(detail).toMatchObject({ file_path: 'meeting.txt', document_type: 'text', metadata: { kind: 'minutes' } });
  });

  it('ingests markdown and JSON files with their document types', async () => {
    const md = await json(await upload(app, { name: 'guide.md', data: `# Guide\n\n${prose('upload-md')}` }, { title: 'The guide' }));
    expect(md.title).toBe('The guide');
    const js = await json(await upload(app, { name: 'data.json', data: JSON.stringify({ text: prose('upload-json') }) }));
    expect(js.status).toBe('completed');
    const types = await Promise.all(
      [md.id, js.id].map(async (id) => (await json(await app.request(`/api/v1/documents/${id}/metadata`))).document_type),
    );
    expect(types).toEqual(['markdown', 'json']);
  });

  it('queues the upload when async_processing is true', async () => {
    const res = await upload(app, { name: 'later.txt', data: prose('upload-async') }, { async_processing: 'true', track_id: 't-9' });
    expect(res.status).toBe(202);
    expect(await json(res)).toMatchObject({ status: 'processing', track_id: 't-9' });
  });

  it('keeps PDF page numbers: page_count and pdf_id in metadata, pages on chunks, config in metadata', async () => {
    const pdf = await buildPdf([
      ['Ada Lovelace met Charles Babbage in London.', 'They discussed the Analytical Engine.'],
      ['Grace Hopper joined Remington Rand in Philadelphia.'],
      ['Alan Turing worked at Bletchley Park in England.'],
    ]);
    const res = await upload(
      app,
      { name: 'history.pdf', data: pdf, type: 'application/pdf' },
      { config: '{"enhance_tables": true, "mode": "fast"}' },
    );
    expect(res.status).toBe(201);
    const body = await json(res);
    const meta = await json(await app.request(`/api/v1/documents/${body.id}/metadata`));
    expect(meta).toMatchObject({ document_type: 'pdf', page_count: 3, file_size_bytes: pdf.length });
    expect(meta.pdf_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(meta.custom).toEqual({ pdf_config: { enhance_tables: true, mode: 'fast' } });
    const chunks = await app.rt.stores.chunks.listByDocument({ workspaceId: app.workspace }, body.id);
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks[0].page_start).toBe(1);
    expect(chunks[chunks.length - 1].page_end).toBe(3);
  });

  describe('refused uploads leave nothing behind', () => {
    const cases: Array<[string, () => Promise<Response>, number, RegExp]> = [
      ['an empty file', () => upload(app, { name: 'empty.txt', data: '' }), 422, /^file: 'empty.txt': .*empty/],
      [
        'an unknown extension',
        () => upload(app, { name: 'slides.pptx', data: 'PK' }),
        400,
        /unsupported file type '.pptx'.*\.pdf, \.txt, \.md, \.json/,
      ],
      ['a corrupt PDF', () => upload(app, { name: 'broken.pdf', data: corruptPdf() }), 422, /^file: 'broken.pdf'/],
      [
        'a text file over 10 MB',
        () => upload(app, { name: 'big.txt', data: Buffer.alloc(10 * MB + 1, 0x61) }),
        413,
        /file too large \(limit 10 MB\)/,
      ],
      ['a part over 50 MB', () => upload(app, { name: 'huge.pdf', data: Buffer.alloc(50 * MB + 1, 0x61) }), 413, /limit 50 MB/],
      [
        'a missing file part',
        () => app.request('/api/v1/documents/upload', { method: 'POST', body: form('other', [], { title: 'x' }) }),
        422,
        /^file: required$/,
      ],
      [
        'a file sent as a text field',
        () => app.request('/api/v1/documents/upload', { method: 'POST', body: form('x', [], { file: 'text' }) }),
        422,
        /file: must be a file part/,
      ],
      [
        'metadata that is not JSON',
        () => upload(app, { name: 'm1.txt', data: prose('m1') }, { metadata: '{oops' }),
        422,
        /metadata: must be an object as JSON text/,
      ],
      [
        'metadata that is an array',
        () => upload(app, { name: 'm2.txt', data: prose('m2') }, { metadata: '[1]' }),
        422,
        /metadata: must be a JSON object/,
      ],
      [
        'a config with a wrong type',
        () => upload(app, { name: 'c.pdf', data: prose('c') }, { config: '{"enhance_tables":"yes"}' }),
        422,
        /config: enhance_tables/,
      ],
      [
        'a bad boolean field',
        () => upload(app, { name: 'b.txt', data: prose('b') }, { async_processing: 'maybe' }),
        422,
        /async_processing/,
      ],
      [
        'a JSON body',
        () => app.request('/api/v1/documents/upload', { method: 'POST', json: { content: 'x' } }),
        400,
        /expects Content-Type: multipart\/form-data/,
      ],
    ];
    it.each(cases)('refuses %s', async (_name, send, status, detail) => {
      const before = await storedCounts(app);
      const res = await send();
      expect(res.status).toBe(status);
      const problem = await json(res);
      expect(problem.status).toBe(status);
      expect(problem.detail).toMatch(detail);
      expect(await storedCounts(app)).toEqual(before);
    });
  });

  it('refuses a file already ingested with 409 and duplicate_of', async () => {
    const first = await json(await upload(app, { name: 'once.txt', data: prose('once') }));
    const res = await upload(app, { name: 'twice.txt', data: prose('once') });
    expect(res.status).toBe(409);
    expect((await json(res)).duplicate_of).toBe(first.id);
  });
});

describe('batch upload (POST /documents/upload/batch)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  const batch = (body: FormData) => app.request('/api/v1/documents/upload/batch', { method: 'POST', body });

  it('reports every item and ingests the good files among duplicates, oversize and unreadable ones', async () => {
    const existing = await json(await upload(app, { name: 'existing.txt', data: prose('batch-existing') }));
    const res = await batch(
      form('files', [
        { name: 'one.txt', data: prose('batch-one') },
        { name: 'again.txt', data: prose('batch-existing') },
        { name: 'big.txt', data: Buffer.alloc(10 * MB + 1, 0x62) },
        { name: 'two.md', data: `# Two\n\n${prose('batch-two')}` },
        { name: 'one-copy.txt', data: prose('batch-one') },
        { name: 'empty.json', data: '' },
        { name: 'notes.docx', data: 'PK' },
      ]),
    );
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ processed: 2, duplicates: 2, failed: 3 });
    const [one, again, big, two, copy, empty, docx] = body.results;
    expect(one).toMatchObject({ filename: 'one.txt', status: 'success', duplicate_of: null, error: null });
    expect(one.chunk_count).toBeGreaterThanOrEqual(1);
    expect(again).toMatchObject({ filename: 'again.txt', status: 'duplicate', duplicate_of: existing.id, document_id: null });
    expect(big).toMatchObject({ filename: 'big.txt', status: 'failed', error: 'file too large (limit 10 MB)', document_id: null });
    expect(two).toMatchObject({ filename: 'two.md', status: 'success' });
    expect(copy).toMatchObject({ filename: 'one-copy.txt', status: 'duplicate', duplicate_of: one.document_id });
    expect(empty).toMatchObject({ status: 'failed' });
    expect(empty.error).toMatch(/empty/);
    expect(docx.error).toMatch(/unsupported file type '.docx'/);

    const list = await json(await app.request('/api/v1/documents?status=completed'));
    expect(list.documents.map((d: { id: string }) => d.id).sort()).toEqual([existing.id, one.document_id, two.document_id].sort());
    expect((await storedCounts(app)).documents).toBe(3);
  });

  it('queues the files when async_processing is true', async () => {
    const body = await json(await batch(form('files', [{ name: 'q.txt', data: prose('batch-q') }], { async_processing: 'true' })));
    expect(body.results[0]).toMatchObject({ status: 'success', chunk_count: null });
    expect(typeof body.results[0].task_id).toBe('string');
    // Settled before the next test counts what is stored.
    expect((await waitForTask(app, body.results[0].task_id)).status).toBe('completed');
  });

  it('refuses a batch without files with 422', async () => {
    const before = await storedCounts(app);
    const res = await batch(form('files', [], { metadata: '{}' }));
    expect(res.status).toBe(422);
    expect((await json(res)).detail).toBe('files: at least one file part is required');
    expect(await storedCounts(app)).toEqual(before);
  });
});
