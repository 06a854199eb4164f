import { accessOf } from '../../src/http/api';
import { type TestApp, startTestApp } from '../helpers/app';

/**
 * Tenant isolation, generated from the router's own route table: for every route that needs credentials, tenant A's
 * administrator aims at tenant B's objects by path id, by X-Workspace-ID, by X-Tenant-ID and by filters, and gets
 * nothing of B; B's data is the same afterwards. A route added without an entry in MATRIX fails the test.
 */

interface Entry {
  /** Request bodies to send (one request each); multipart routes give form data. */
  bodies?: Array<Record<string, unknown> | (() => FormData)>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

/** B's objects (filled in beforeAll) and the words only B's document contains. */
const B = {
  tenant: '',
  workspace: '',
  document: '',
  chunk: '',
  entity: '',
  entityName: '',
  task: '',
  conversation: '',
  message: '',
  folder: '',
  user: '',
  key: '',
  keyPrefix: '',
  community: '',
  view: '',
};
const B_WORDS = ['Zorblax', 'Quintessa', 'Vantablack', 'Qwertopolis'];
const B_CONTENT = 'Zorblax Quintessa founded Vantablack Foundry in Qwertopolis. Vantablack Foundry casts bells for Qwertopolis Cathedral.';

const file = (name: string) => () => {
  const form = new FormData();
  form.append('file', new Blob(['Plain text of tenant A.'], { type: 'text/plain' }), name);
  return form;
};
const batch = () => {
  const form = new FormData();
  form.append('files', new Blob(['Plain text of tenant A.'], { type: 'text/plain' }), 'a.txt');
  return form;
};

const ASK = [{ role: 'user', content: 'Who founded Vantablack Foundry?' }];

const MATRIX: Record<string, Entry> = {
  'GET /api/v1/graph': { query: { start_node: '$entity' } },
  'GET /api/v1/graph/stats': {},
  'GET /api/v1/graph/stream': { query: { start_node: '$entity' } },
  'GET /api/v1/graph/entities': { query: { search: 'Zorblax' } },
  'POST /api/v1/graph/entities/merge': { bodies: [{ source_ids: ['$entity'], target_id: '$entityName' }] },
  'GET /api/v1/graph/entities/:id': {},
  'PATCH /api/v1/graph/entities/:id': { bodies: [{ description: 'changed by tenant A' }] },
  'POST /api/v1/graph/entities/:id/rename': { bodies: [{ name: 'Renamed by A' }] },
  'GET /api/v1/graph/relationships': {},
  'GET /api/v1/graph/communities': {},
  'GET /api/v1/graph/communities/status': {},
  'POST /api/v1/graph/communities/rebuild': { query: { wait: 'true' } },
  'GET /api/v1/graph/communities/:id': {},
  'GET /api/v1/graph/analytics/shortest-paths': { query: { from: '$entity', to: '$entity' } },
  'GET /api/v1/graph/analytics/neighbourhood': { query: { entity: '$entity' } },
  'GET /api/v1/graph/analytics/top-entities': { query: { metric: 'pagerank' } },
  'GET /api/v1/graph/analytics/co-mentioned': { query: { entity: '$entity' } },
  'GET /api/v1/graph/analytics/community-bridges': {},
  'GET /api/v1/graph/analytics/shared-documents': {},
  'POST /api/v1/graph/cypher': { bodies: [{ query: 'MATCH (n) RETURN n LIMIT 5' }] },
  'GET /api/v1/documents/:document_id/lineage': {},
  'GET /api/v1/chunks/:chunk_id': {},
  'GET /api/v1/chunks/:chunk_id/lineage': {},
  'GET /api/v1/entities/:entity_id/provenance': {},
  'GET /api/v1/lineage/entities/:entity_name': {},
  'GET /api/v1/lineage/documents/:document_id': {},
  'GET /api/v1/auth/me': {},
  'GET /api/v1/models': {},
  'GET /api/v1/models/llm': {},
  'GET /api/v1/models/embedding': {},
  'GET /api/v1/models/health': {},
  'GET /api/v1/models/:provider/:model': {},
  'GET /api/v1/providers': {},
  'GET /api/v1/providers/:provider': {},
  'GET /api/v1/providers/:provider/models': {},
  'GET /api/v1/settings': {},
  'PATCH /api/v1/settings': { bodies: [{ query: { rerank_top_k: 9 } }] },
  'POST /api/v1/users': {
    bodies: [{ username: 'mallory-of-a', email: 'm@example.com', password: 'long enough', role: 'admin', tenant_id: '$tenant' }],
  },
  'GET /api/v1/users': { query: { tenant_id: '$tenant' } },
  'GET /api/v1/users/:id': {},
  'PATCH /api/v1/users/:id': { bodies: [{ role: 'viewer' }, { password: 'taken over by A' }] },
  'DELETE /api/v1/users/:id': {},
  'POST /api/v1/api-keys': {
    bodies: [
      { name: 'k', tenant_id: '$tenant' },
      { name: 'k', workspace_id: '$workspace' },
    ],
  },
  'GET /api/v1/api-keys': {},
  'DELETE /api/v1/api-keys/:id': {},
  'POST /api/v1/tenants': { bodies: [{ name: 'Tenant of A' }] },
  'GET /api/v1/tenants': {},
  'GET /api/v1/tenants/:id': {},
  'PATCH /api/v1/tenants/:id': { bodies: [{ plan: 'changed by A' }] },
  'PUT /api/v1/tenants/:id': { bodies: [{ name: 'changed by A' }] },
  'DELETE /api/v1/tenants/:id': { query: { force: 'true' } },
  'POST /api/v1/tenants/:tenant_id/workspaces': { bodies: [{ name: 'planted by A' }] },
  'GET /api/v1/tenants/:tenant_id/workspaces': {},
  'POST /api/v1/workspaces': { bodies: [{ name: 'planted by A' }], headers: { 'X-Tenant-ID': '$tenant' } },
  'GET /api/v1/workspaces': { query: { tenant_id: '$tenant' } },
  'GET /api/v1/workspaces/:id': {},
  'PATCH /api/v1/workspaces/:id': { bodies: [{ name: 'changed by A' }, { embedding_dimension: 8 }] },
  'PUT /api/v1/workspaces/:id': { bodies: [{ name: 'changed by A' }, { description: 'changed by A' }] },
  'DELETE /api/v1/workspaces/:id': {},
  'GET /api/v1/workspaces/:id/stats': {},
  'POST /api/v1/workspaces/:id/metrics-snapshot': {},
  'GET /api/v1/workspaces/:id/metrics-history': {},
  'POST /api/v1/workspaces/:id/rebuild-embeddings': { bodies: [{ embedding_model: 'mock-embedding', embedding_dimension: 8 }] },
  'POST /api/v1/workspaces/:id/rebuild-knowledge-graph': { bodies: [{ llm_model: 'mock-llm' }] },
  'POST /api/v1/workspaces/:id/reprocess-documents': {},
  'POST /api/v1/query': { bodies: [{ query: 'Who founded Vantablack Foundry?', mode: 'mix', context_only: true }] },
  'POST /api/v1/query/stream': { bodies: [{ query: 'Who founded Vantablack Foundry?', mode: 'mix' }] },
  'POST /api/v1/chat/completions': { bodies: [{ message: 'Who founded Vantablack Foundry?', conversation_id: '$conversation' }] },
  'GET /api/v1/conversations': { query: { 'filter[folder_id]': '$folder' } },
  'POST /api/v1/conversations': { bodies: [{ title: 'A' }, { title: 'A', folder_id: '$folder' }] },
  'GET /api/v1/conversations/:id': {},
  'PATCH /api/v1/conversations/:id': { bodies: [{ title: 'changed by tenant A' }, { folder_id: null }] },
  'DELETE /api/v1/conversations/:id': {},
  'GET /api/v1/conversations/:id/messages': {},
  'POST /api/v1/conversations/bulk/move': {
    bodies: [
      { conversation_ids: ['$conversation'], folder_id: null },
      { conversation_ids: ['$conversation'], folder_id: '$folder' },
    ],
  },
  'POST /api/v1/conversations/bulk/archive': { bodies: [{ conversation_ids: ['$conversation'] }] },
  'POST /api/v1/conversations/bulk/delete': { bodies: [{ conversation_ids: ['$conversation'] }] },
  // Not offered (501), whatever they name.
  'POST /api/v1/conversations/:id/share': {},
  'DELETE /api/v1/conversations/:id/share': {},
  'GET /api/v1/shared/:share_id': {},
  'POST /api/v1/conversations/import': { bodies: [{ conversations: [{ id: '$conversation', title: 'A' }] }] },
  'POST /api/v1/conversations/:id/messages': { bodies: [{ role: 'user', content: 'planted by A' }] },
  'PATCH /api/v1/messages/:id': { bodies: [{ content: 'changed by A' }] },
  'DELETE /api/v1/messages/:id': {},
  'GET /api/v1/folders': {},
  'POST /api/v1/folders': { bodies: [{ name: 'A' }] },
  'PATCH /api/v1/folders/:id': { bodies: [{ name: 'renamed by tenant A' }] },
  'DELETE /api/v1/folders/:id': {},
  'GET /api/v1/graph/views': {},
  'POST /api/v1/graph/views': {
    bodies: [{ name: 'View of B', view: { start_node: '$entity', depth: 1, max_nodes: 100, hidden_types: [], layout: 'force' } }],
  },
  'DELETE /api/v1/graph/views/:id': {},
  'POST /api/v1/documents': { bodies: [{ content: B_CONTENT, title: 'copy of B' }] },
  'POST /api/v1/documents/upload': { bodies: [file('a.txt')] },
  'POST /api/v1/documents/upload/batch': { bodies: [batch] },
  'POST /api/v1/documents/scan': { bodies: [{ path: '.' }] },
  'GET /api/v1/documents': {},
  'POST /api/v1/documents/reprocess': {},
  'POST /api/v1/documents/recover-stuck': {},
  'GET /api/v1/documents/track/:task_id': {},
  'GET /api/v1/documents/:id': {},
  'GET /api/v1/documents/:id/metadata': {},
  'GET /api/v1/documents/:id/history': {},
  'DELETE /api/v1/documents/:id': {},
  'PUT /api/v1/documents/:id': { bodies: [{ content: 'Replaced by tenant A.' }] },
  'GET /api/v1/graph/resolution/settings': {},
  'PUT /api/v1/graph/resolution/settings': { bodies: [{ enabled: false }] },
  'POST /api/v1/graph/resolution/dry-run': { bodies: [{ entity_ids: ['$entity'] }, {}] },
  'POST /api/v1/graph/resolution/apply': { bodies: [{ merges: [{ source_id: '$entity', target_id: '$entityName' }] }] },
  'POST /api/v1/graph/resolution/reject': { bodies: [{ pairs: [{ source_id: '$entity', target_id: '$entityName' }] }] },
  'POST /api/v1/graph/entities/:id/split': { bodies: [{ alias: '$entity' }] },
  'GET /api/v1/documents/:id/deletion-impact': {},
  'POST /api/v1/documents/:id/retry-chunks': {},
  'GET /api/v1/documents/:id/failed-chunks': {},
  'GET /api/v1/tasks': {},
  'GET /api/v1/tasks/:id': {},
  'POST /api/v1/tasks/:id/cancel': {},
  'POST /api/v1/tasks/:id/retry': {},
  'GET /api/v1/pipeline/status': {},
  'POST /api/v1/pipeline/cancel': {},
  'GET /api/v1/pipeline/queue-metrics': {},
  'GET /api/v1/pipeline/costs/pricing': {},
  'POST /api/v1/pipeline/costs/estimate': { bodies: [{ content_length: 1000 }] },
  'GET /api/v1/costs/summary': {},
  'GET /api/v1/costs/tenant': {},
  'GET /api/v1/costs/history': { query: { granularity: 'day' } },
  'GET /api/v1/costs/budget': {},
  'PATCH /api/v1/costs/budget': { bodies: [{ budget_usd: 0 }] },
  'GET /api/v1/settings/tracing': {},
  'GET /api/v1/settings/providers': {},
  'GET /api/v1/settings/provider/status': {},
  'GET /api/v1/setup/status': {},
  'GET /api/v1/connections': {},
  'GET /api/v1/admin/integrity': {},
  'GET /api/v1/graph/nodes/search': { query: { q: 'Zorblax' } },
  'GET /api/v1/graph/nodes/:id': {},
  'GET /api/v1/graph/labels/search': { query: { q: 'Zorblax' } },
  'GET /api/v1/graph/labels/popular': {},
  'GET /api/v1/graph/entities/exists': { query: { name: '$entityName' } },
  'GET /api/v1/graph/entities/:id/neighborhood': {},
  'POST /api/v1/graph/degrees/batch': { bodies: [{ node_ids: ['$entity'] }] },
  'PUT /api/v1/graph/entities/:id': { bodies: [{ description: 'changed by tenant A' }] },
  'POST /api/v1/graph/entities': { bodies: [{ entity_name: 'Planted By A', entity_type: 'PERSON' }] },
  'DELETE /api/v1/graph/entities/:id': { query: { confirm: 'true' } },
  'POST /api/v1/chat/completions/stream': { bodies: [{ message: 'Who founded Vantablack Foundry?', conversation_id: '$conversation' }] },
  // The compatibility APIs: a model naming B's workspace (kgrag:<mode>@<workspace>), and questions in A's own.
  'GET /api/tags': {},
  'GET /api/ps': {},
  'POST /api/show': { bodies: [{ model: 'kgrag:hybrid@$workspace' }] },
  'POST /api/chat': {
    bodies: [
      { model: 'kgrag:mix@$workspace', messages: ASK, stream: false },
      { model: 'kgrag:mix', messages: ASK, stream: false },
    ],
  },
  'POST /api/generate': { bodies: [{ model: 'kgrag:mix@$workspace', prompt: 'Who founded Vantablack Foundry?', stream: false }] },
  'POST /api/embed': { bodies: [{ model: 'kgrag:mix@$workspace', input: ['Zorblax'] }] },
  'POST /api/embeddings': { bodies: [{ model: 'kgrag:mix@$workspace', prompt: 'Zorblax' }] },
  'POST /v1/chat/completions': {
    bodies: [
      { model: 'kgrag:mix@$workspace', messages: ASK },
      { model: 'kgrag:mix', messages: ASK },
    ],
  },
  'POST /v1/embeddings': { bodies: [{ model: 'kgrag:mix@$workspace', input: 'Zorblax' }] },
  'GET /v1/models': {},
  'GET /v1/models/*id': {},
};

/** The value of B's object a path parameter names: by its own name, or for `:id` by the collection before it. */
function paramValue(path: string, name: string): string {
  const byName: Record<string, string> = {
    document_id: B.document,
    chunk_id: B.chunk,
    entity_id: B.entity,
    entity_name: B.entityName,
    task_id: B.task,
    tenant_id: B.tenant,
    // No conversation is shared (sharing is not offered): B's conversation id stands in.
    share_id: B.conversation,
    // The model catalog is the same for everyone: these name its entries.
    provider: 'mock',
    model: 'mock-llm',
  };
  if (name !== 'id') return byName[name] ?? missing(path, name);
  const collection = /\/([a-z-]+)\/[:*]id/.exec(path)?.[1] ?? '';
  const byCollection: Record<string, string> = {
    entities: B.entity,
    documents: B.document,
    tasks: B.task,
    conversations: B.conversation,
    messages: B.message,
    folders: B.folder,
    views: B.view,
    users: B.user,
    'api-keys': B.key,
    nodes: B.entity,
    communities: B.community,
    // GET /v1/models/*id: a RAG model of B's workspace.
    models: `kgrag:hybrid@${B.workspace}`,
    tenants: B.tenant,
    workspaces: B.workspace,
  };
  return byCollection[collection] ?? missing(path, name);
}

function missing(path: string, name: string): never {
  throw new Error(`${path}: no object of tenant B for the path parameter :${name}; add it to paramValue`);
}

/** `$name` placeholders become B's objects. */
function fill<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replace(/\$(\w+)/g, (_, key: string) => (B as Record<string, string>)[key] ?? `$${key}`)) as T;
}

describe('tenant isolation matrix (every protected route, from the route table)', () => {
  let app: TestApp;
  let keyA: string;
  let keyB: string;
  const tenants: string[] = [];
  const asB = (path: string, init: RequestInit = {}) =>
    app.request(path, { ...init, workspace: B.workspace, headers: { 'X-API-Key': keyB, ...(init.headers as Record<string, string>) } });

  /** B's state, read with B's own key and the master key: documents, graph, conversations, tasks, tenant, users, keys. */
  async function stateOfB(): Promise<string> {
    const reads = [
      '/api/v1/documents?limit=500',
      '/api/v1/graph/entities?limit=500',
      '/api/v1/graph/relationships?limit=500',
      '/api/v1/conversations',
      '/api/v1/folders',
      '/api/v1/graph/views',
      '/api/v1/tasks',
      `/api/v1/workspaces/${B.workspace}`,
      `/api/v1/tenants/${B.tenant}`,
      `/api/v1/users/${B.user}`,
    ];
    const bodies = [];
    for (const path of reads) {
      const res = await asB(path, { headers: { 'X-API-Key': app.masterKey } });
      bodies.push(`${path} ${res.status} ${await res.text()}`);
    }
    const keys = await app.rt.stores.accounts.apiKeys.list({ tenant_id: B.tenant }, { limit: 100, offset: 0 });
    bodies.push(JSON.stringify(keys.items.map((k) => [k.id, k.revoked_at])));
    return bodies.join('\n');
  }

  beforeAll(async () => {
    app = await startTestApp();
    const master = { kind: 'master' as const, id: 'master', tenantId: null, role: 'admin' as const, userId: null, workspaceId: null };
    const run = Math.random().toString(36).slice(2, 10);
    const a = await app.rt.tenancy.createTenant({ name: `Tenant A ${run}` });
    const b = await app.rt.tenancy.createTenant({ name: `Tenant B ${run}` });
    tenants.push(a.tenant.id, b.tenant.id);
    B.tenant = b.tenant.id;
    B.workspace = b.default_workspace.id;
    keyA = await app.createApiKey({ role: 'admin', tenantId: a.tenant.id });
    keyB = await app.createApiKey({ role: 'admin', tenantId: B.tenant });
    const user = await app.rt.auth.users.create(master, {
      username: `bob-of-b-${run}`,
      email: 'bob@b.example',
      password: 'password of b',
      role: 'editor',
      tenant_id: B.tenant,
    });
    B.user = user.id;
    const other = await app.rt.auth.keys.create(master, { name: 'b key', tenant_id: B.tenant, role: 'viewer' });
    B.key = other.id;
    B.keyPrefix = other.prefix;
    const doc = (await (
      await asB('/api/v1/documents', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ content: B_CONTENT, title: 'Zorblax' }),
      })
    ).json()) as { id: string; task_id: string };
    B.document = doc.id;
    B.chunk = `${doc.id}-chunk-0`;
    const entities = (await (await asB('/api/v1/graph/entities?search=zorblax')).json()) as {
      items?: Array<{ id: string; name: string }>;
      entities?: Array<{ id: string; name: string }>;
    };
    const entity = (entities.items ?? entities.entities ?? [])[0];
    B.entity = entity.id;
    B.entityName = entity.name;
    const tasks = (await (await asB('/api/v1/tasks')).json()) as { tasks: Array<{ id: string }> };
    B.task = tasks.tasks[0].id;
    const chat = (await (
      await asB('/api/v1/chat/completions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ message: 'Who is Zorblax?' }),
      })
    ).json()) as { conversation_id: string; user_message_id: string };
    B.conversation = chat.conversation_id;
    B.message = chat.user_message_id;
    const folder = (await (
      await asB('/api/v1/folders', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Folder of B' }),
      })
    ).json()) as { id: string };
    B.folder = folder.id;
    await asB(`/api/v1/conversations/${B.conversation}`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ folder_id: B.folder }),
    });
    const view = (await (
      await asB('/api/v1/graph/views', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': app.masterKey },
        body: JSON.stringify({
          name: 'View of B',
          view: { start_node: B.entity, depth: 1, max_nodes: 100, hidden_types: [], layout: 'force' },
        }),
      })
    ).json()) as { id: string };
    B.view = view.id;
    await asB('/api/v1/graph/communities/rebuild?wait=true', { method: 'POST' });
    const communities = (await (await asB('/api/v1/graph/communities')).json()) as { communities: Array<{ id: string }> };
    B.community = communities.communities[0]?.id ?? 'community-0-none';
    expect(Object.values(B).every((v) => v.length > 0)).toBe(true);
  }, 120_000);
  // Both tenants go with everything they hold: no task of theirs is left for the next suite's workers.
  afterAll(async () => {
    const master = { kind: 'master' as const, id: 'master', tenantId: null, role: 'admin' as const, userId: null, workspaceId: null };
    for (const id of tenants) await app.rt.tenancy.deleteTenant(master, id, true);
    await app.close();
  });

  it('has a matrix entry for every protected route, and no entry for a route that does not exist', () => {
    const protectedRoutes = app.routes
      .filter((r) => !['public', 'credentials'].includes(accessOf(r.spec).access))
      .map((r) => `${r.spec.method.toUpperCase()} ${r.prefix}${r.spec.path}`);
    expect(protectedRoutes.filter((r) => !(r in MATRIX))).toEqual([]);
    expect(Object.keys(MATRIX).filter((r) => !protectedRoutes.includes(r))).toEqual([]);
  });

  it("gives tenant A's administrator nothing of tenant B by path id, header or filter, and leaves B's data as it was", async () => {
    const before = await stateOfB();
    const markers = [
      B.tenant,
      B.workspace,
      B.document,
      B.entity,
      B.task,
      B.conversation,
      B.folder,
      B.view,
      B.user,
      B.key,
      B.keyPrefix,
      ...B_WORDS,
    ];
    const leaks: string[] = [];
    for (const { prefix, spec } of app.routes) {
      const { access, workspace } = accessOf(spec);
      if (access === 'public' || access === 'credentials') continue;
      const key = `${spec.method.toUpperCase()} ${prefix}${spec.path}`;
      const entry = fill(MATRIX[key]);
      const path = (prefix + spec.path).replace(/[:*](\w+)/g, (_, name: string) => encodeURIComponent(paramValue(spec.path, name)));
      const query = entry.query ? `?${new URLSearchParams(entry.query)}` : '';
      const variants: Array<{ label: string; headers: Record<string, string>; expect?: number }> = [
        { label: 'path and filters', headers: {} },
      ];
      if (workspace) {
        variants.push({ label: 'X-Workspace-ID of B', headers: { 'X-Workspace-ID': B.workspace }, expect: 404 });
        variants.push({ label: 'X-Tenant-ID of B', headers: { 'X-Tenant-ID': B.tenant }, expect: 403 });
      }
      const bodies = MATRIX[key].bodies?.map((body) => (typeof body === 'function' ? body : fill(body))) ?? [undefined];
      for (const variant of variants) {
        for (const body of bodies) {
          const headers: Record<string, string> = { 'X-API-Key': keyA, ...entry.headers, ...variant.headers };
          let payload: FormData | string | undefined;
          if (typeof body === 'function') payload = body();
          else if (body !== undefined) {
            headers['Content-Type'] = 'application/json';
            payload = JSON.stringify(body);
          }
          // What the request itself named may be echoed back (a 404 says which id it did not find).
          const sent = decodeURIComponent(
            `${path}${query.replace(/\+/g, ' ')} ${JSON.stringify(variant.headers)} ${typeof body === 'function' ? '' : JSON.stringify(body ?? '')} ${JSON.stringify(entry.headers ?? {})}`,
          )
            .toLowerCase()
            // ... also in the normalised form of a name (spaces to underscores).
            .replace(/ /g, '_');
          const res = await fetch(`${app.url}${path}${query}`, {
            method: spec.method.toUpperCase(),
            headers,
            body: payload,
            signal: AbortSignal.timeout(10_000),
          }).catch((err: Error) => err);
          if (res instanceof Error) {
            leaks.push(`${key} [${variant.label}]: no answer (${res.message})`);
            continue;
          }
          const text = await res.text();
          if (/"exists":true/.test(text)) leaks.push(`${key} [${variant.label}]: says B's entity exists`);
          if (variant.expect !== undefined && res.status !== variant.expect) {
            leaks.push(`${key} [${variant.label}]: ${res.status} instead of ${variant.expect}`);
          }
          const seen = markers.filter(
            (m) => !sent.includes(m.toLowerCase().replace(/ /g, '_')) && text.toLowerCase().includes(m.toLowerCase()),
          );
          if (seen.length > 0) leaks.push(`${key} [${variant.label}]: ${res.status} shows ${seen.join(', ')}`);
        }
      }
    }
    expect(leaks).toEqual([]);
    expect(await stateOfB()).toEqual(before);
  });
});
