import http from 'node:http';
import { startTestApp, type TestApp } from '../helpers/app';

/** Requests as clients really send them: what the fuzzer and common HTTP libraries do beyond the happy path. */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
});

type ProblemBody = { status: number; detail: string; type: string };

/** A request fetch cannot make (TRACE, an empty X-Workspace-ID), with the app's credentials unless `headers` replace them. */
function raw(
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${app.url}${path}`, { method, headers: { ...app.headers, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('methods a path does not serve', () => {
  it.each(['TRACE', 'PUT', 'PATCH'])('answers %s with 405, a problem and Allow', async (method) => {
    const res = await raw(method, '/api/v1/documents');
    expect(res.status).toBe(405);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers.allow?.split(', ').sort()).toEqual(['GET', 'HEAD', 'OPTIONS', 'POST']);
    expect((JSON.parse(res.body) as ProblemBody).status).toBe(405);
  });

  it('lists only the methods of a fixed path, not those of a parametrised path it also matches', async () => {
    const res = await app.request('/api/v1/documents/scan', { method: 'GET' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('answers OPTIONS with the methods', async () => {
    const res = await app.request('/api/v1/documents', { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD', 'OPTIONS', 'POST']);
  });

  it('answers the compatibility paths in their own error shape', async () => {
    const res = await raw('TRACE', '/v1/models');
    expect(res.status).toBe(405);
    expect((JSON.parse(res.body) as { error: { code: string } }).error.code).toBe('method_not_allowed');
  });
});

describe('scope headers', () => {
  it.each([
    ['X-Workspace-ID', 'must be a workspace UUID or slug'],
    ['X-Tenant-ID', 'must be a UUID'],
  ])('refuses %s sent empty, as it refuses any value that names nothing', async (name, expected) => {
    const res = await raw('GET', '/api/v1/documents', { [name]: '' });
    expect(res.status).toBe(400);
    expect((JSON.parse(res.body) as ProblemBody).detail).toMatch(new RegExp(`${name} ${expected}`));
  });
});

describe('what Node refuses before the app', () => {
  it('answers headers over the size limit with a 431 problem that quotes the limit', async () => {
    const res = await raw('GET', '/health', { 'X-Padding': 'a'.repeat(20_000) });
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(res.body)).toMatchObject({ status: 431, detail: expect.stringMatching(/exceed the \d+-byte limit/) });
  });
});

describe('response headers', () => {
  it('carry the secure defaults on every answer, problems included', async () => {
    for (const path of ['/health', '/api/v1/no-such-route']) {
      const res = await raw('GET', path);
      expect(res.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
      });
    }
  });
});

describe('path ids', () => {
  it('answers a workspace id that is neither a UUID nor a slug (as a client that printed null sends it) with 404', async () => {
    const res = await app.request('/api/v1/workspaces/None/stats');
    expect(res.status).toBe(404);
    expect(((await res.json()) as ProblemBody).detail).toMatch(/named by its UUID or its slug/);
  });
});

describe('list offsets', () => {
  it.each(['/api/v1/tenants', '/api/v1/users', '/api/v1/api-keys', '/api/v1/workspaces', '/api/v1/documents', '/api/v1/conversations'])(
    'reads an empty page at the largest offset %s accepts',
    async (path) => {
      const res = await app.request(`${path}?limit=50&offset=${Number.MAX_SAFE_INTEGER - 1}`);
      expect(res.status).toBe(200);
    },
  );
});

describe('JSON bodies', () => {
  it('refuses a member named __proto__ with a problem that says so', async () => {
    const res = await app.request('/api/v1/query', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"query": "who?", "x": {"__proto__": {"polluted": true}}}',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ProblemBody).detail).toMatch(/__proto__/);
  });
});

describe('text encoding and NUL characters', () => {
  /** `{"query": "caf<bytes>"}` with the given bytes inside the string. */
  const jsonWith = (bytes: number[]) =>
    Buffer.concat([Buffer.from('{"query": "caf'), Buffer.from(bytes), Buffer.from('", "mode": "bypass"}')]);

  it.each([
    ['a lone continuation byte', [0x80]],
    ['a truncated sequence', [0xc3]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
  ])('refuses a JSON body holding %s with a 400 invalid-encoding problem', async (_what, bytes) => {
    const res = await app.request('/api/v1/query', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: jsonWith(bytes),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({
      status: 400,
      type: expect.stringMatching(/\/invalid-encoding$/),
      title: 'Invalid Encoding',
      detail: expect.stringMatching(/not valid UTF-8/),
    });
  });

  it('takes the same text in valid UTF-8, U+FFFD sent as such included', async () => {
    for (const bytes of [
      [0xc3, 0xa9],
      [0xef, 0xbf, 0xbd],
    ]) {
      const res = await app.request('/api/v1/query', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: jsonWith(bytes),
      });
      expect(res.status).toBe(200);
    }
  });

  it('refuses invalid UTF-8 on the compatibility paths in their own error shape', async () => {
    const body = Buffer.concat([
      Buffer.from('{"model": "kgrag", "messages": [{"role": "user", "content": "hi'),
      Buffer.from([0xff]),
      Buffer.from('"}]}'),
    ]);
    const res = await app.request('/v1/chat/completions', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/not valid UTF-8/);
  });

  it('refuses a NUL character in JSON document content as it refuses a NUL byte in an uploaded text file', async () => {
    const json = await app.request('/api/v1/documents', { method: 'POST', json: { content: 'Ada Lovelace\u0000 wrote notes.' } });
    expect(json.status).toBe(422);
    const jsonProblem = (await json.json()) as ProblemBody & { errors: Array<{ field: string; message: string }> };
    expect(jsonProblem.errors).toEqual([{ field: 'content', message: 'contains binary data (NUL characters), not text' }]);

    const form = new FormData();
    form.append('file', new Blob([Buffer.from('Ada Lovelace\u0000 wrote notes.')]), 'notes.txt');
    const file = await app.request('/api/v1/documents/upload', { method: 'POST', body: form });
    expect(file.status).toBe(422);
    const fileProblem = (await file.json()) as ProblemBody & { errors: Array<{ field: string; message: string }> };
    expect(fileProblem.type).toBe(jsonProblem.type);
    expect(fileProblem.errors).toEqual([{ field: 'file', message: "'notes.txt': the file contains binary data (NUL bytes), not text" }]);

    const updated = await app.request('/api/v1/documents', { method: 'POST', json: { content: 'Ada Lovelace wrote notes.' } });
    const { id } = (await updated.json()) as { id: string };
    const put = await app.request(`/api/v1/documents/${id}`, { method: 'PUT', json: { content: 'Ada\u0000' } });
    expect(put.status).toBe(422);
    const listed = (await (await app.request('/api/v1/documents')).json()) as { total: number };
    expect(listed.total).toBe(1);
  });
});

describe('multipart uploads', () => {
  it('takes a file part without a Content-Type of its own as a file (the python-requests default)', async () => {
    const boundary = 'kgrag-boundary-1';
    const body = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="file"; filename="plain.txt"',
      '',
      'Grace Hopper worked at the Navy in Arlington.',
      `--${boundary}--`,
      '',
    ].join('\r\n');
    const res = await app.request('/api/v1/documents/upload', {
      method: 'POST',
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ title: 'plain.txt', status: 'completed' });
  });
});

describe('the published document', () => {
  it('states the refinements the validator applies', async () => {
    const doc = (await (await app.request('/api-docs/openapi.json')).json()) as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } }>>;
    };
    const body = (path: string, method: string) => doc.paths[path][method].requestBody!.content['application/json'].schema;
    expect(body('/api/v1/graph/entities/{id}', 'patch').anyOf).toEqual([{ required: ['description'] }, { required: ['entity_type'] }]);
    expect(body('/api/v1/api-keys', 'post').not).toEqual({ required: ['expires_at', 'expires_in'] });
    expect(body('/api/v1/tenants/{id}', 'patch').anyOf).toEqual([{ required: ['name'] }, { required: ['slug'] }, { required: ['plan'] }]);
  });

  it('documents the standard refusals of every operation', async () => {
    const doc = (await (await app.request('/api-docs/openapi.json')).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
    };
    const post = doc.paths['/api/v1/query'].post.responses;
    for (const status of ['400', '401', '403', '404', '413', '415', '422', '429', '503']) {
      expect(Object.keys(post[status].content ?? {})).toEqual(['application/problem+json']);
    }
    expect(Object.keys(doc.paths['/v1/chat/completions'].post.responses['400'].content ?? {})).toEqual(['application/json']);
  });
});
