import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app';
import { closedPortUrl, type ProviderStub, startProviderStub } from '../fixtures/provider-stub';

/** /models and /providers (docs/api.md §4.11): the catalog merged with env, deprecated models marked, costs shown. */

jest.setTimeout(60_000);

const STUB_KEY = 'stub-secret-7a41c0';
let app: TestApp;
let stub: ProviderStub;
let dir: string;

interface Model {
  id: string;
  name: string;
  provider: string;
  model_type: string;
  context_length: number;
  capabilities: string[];
  deprecated: boolean;
  cost: Record<string, number>;
  supports: Record<string, boolean>;
}
interface Provider {
  name: string;
  enabled: boolean;
  api_key_env: string | null;
  api_key_set: boolean;
  default_for: string[];
  last_check: { status: string; checked_at: string } | null;
}

beforeAll(async () => {
  stub = await startProviderStub({ apiKey: STUB_KEY });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-models-'));
  const file = path.join(dir, 'models.toml');
  fs.writeFileSync(
    file,
    `${fs.readFileSync(path.join(__dirname, '../../models.toml'), 'utf8')}
[[providers]]
name = "lab"
display_name = "Lab runtime"
type = "ollama"
api_base = "${stub.url}"
priority = 5

[[providers.models]]
name = "old-llm"
model_type = "llm"
deprecated = true
[providers.models.capabilities]
context_length = 4096

[[providers.models]]
name = "new-llm"
model_type = "llm"
[providers.models.cost]
input_per_1k = 0.5
output_per_1k = 1.5

[[providers]]
name = "keyed"
type = "openai"
api_base = "${stub.url}/v1"
api_key_env = "STUB_KEY"
priority = 30
models = [{ name = "keyed-llm", model_type = "llm" }]
`,
  );
  app = await startTestApp({ SERVICE_MODELS_CONFIG: file, STUB_KEY, OLLAMA_HOST: await closedPortUrl() });
});

afterAll(async () => {
  await app?.close();
  await stub.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function get<T>(p: string, status = 200): Promise<T> {
  const res = await app.request(p);
  expect(res.status).toBe(status);
  return (await res.json()) as T;
}

describe('GET /models', () => {
  it('lists the models of enabled providers in the spec shape, with capabilities, costs and deprecation', async () => {
    const { models } = await get<{ models: Model[] }>('/api/v1/models');
    expect(models).toContainEqual(
      expect.objectContaining({ id: 'mock/mock-llm', name: 'mock-llm', provider: 'mock', context_length: 128000, capabilities: ['chat'] }),
    );
    expect(models).toContainEqual(expect.objectContaining({ id: 'mock/mock-embedding', capabilities: ['embeddings'] }));
    expect(models.find((m) => m.id === 'lab/old-llm')).toMatchObject({ deprecated: true, context_length: 4096 });
    expect(models.find((m) => m.id === 'lab/new-llm')).toMatchObject({
      deprecated: false,
      cost: { input_per_1k: 0.5, output_per_1k: 1.5, embedding_per_1k: 0, image_per_unit: 0 },
    });
    expect(models.find((m) => m.id === 'mock/mock-llm')?.supports).toMatchObject({ json_mode: true, streaming: true });
    // openai is disabled without OPENAI_API_KEY: listed only on request.
    expect(models.some((m) => m.provider === 'openai')).toBe(false);
    const all = await get<{ models: Model[] }>('/api/v1/models?include_disabled=true&provider=openai');
    expect(all.models.find((m) => m.id === 'openai/gpt-4o')).toMatchObject({ cost: { input_per_1k: 0.0025, output_per_1k: 0.01 } });
  });

  it('filters by kind and provider', async () => {
    const llm = await get<{ models: Model[] }>('/api/v1/models/llm');
    const embedding = await get<{ models: Model[] }>('/api/v1/models/embedding');
    expect(llm.models.length).toBeGreaterThan(0);
    expect(llm.models.every((m) => m.model_type === 'llm')).toBe(true);
    expect(embedding.models.map((m) => m.id)).toContain('mock/mock-embedding');
    expect(embedding.models.every((m) => m.model_type === 'embedding')).toBe(true);
    const lab = await get<{ models: Model[] }>('/api/v1/models?provider=lab');
    expect(lab.models.map((m) => m.id)).toEqual(['lab/old-llm', 'lab/new-llm']);
  });

  it('shows one model with what it is the default for, and 404 for models or providers the catalog lacks', async () => {
    expect(await get('/api/v1/models/mock/mock-llm')).toMatchObject({ id: 'mock/mock-llm', default_for: ['llm'] });
    expect(await get('/api/v1/models/mock/mock-embedding')).toMatchObject({ default_for: ['embedding'] });
    expect(await get('/api/v1/models/lab/old-llm')).toMatchObject({ deprecated: true, default_for: [] });
    const missing = await get<{ status: number; detail: string }>('/api/v1/models/mock/gpt-9', 404);
    expect(missing.detail).toMatch(/gpt-9/);
    await get('/api/v1/models/ghost/anything', 404);
  });

  it('refuses callers without valid credentials', async () => {
    const res = await app.request('/api/v1/models', { headers: { 'X-API-Key': 'not-a-key' } });
    expect(res.status).toBe(401);
  });
});

describe('GET /models/health', () => {
  it('checks every enabled provider live, concurrently, with latency, each within its timeout', async () => {
    const { providers, checked_at } = await get<{
      providers: Array<{ name: string; status: string; latency_ms: number; error?: string }>;
      checked_at: string;
    }>('/api/v1/models/health');
    expect(Number.isNaN(Date.parse(checked_at))).toBe(false);
    const byName = Object.fromEntries(providers.map((p) => [p.name, p]));
    expect(Object.keys(byName).sort()).toEqual(['keyed', 'lab', 'mock', 'ollama']);
    expect(byName.mock).toMatchObject({ status: 'healthy', latency_ms: 0 });
    expect(byName.lab).toMatchObject({ status: 'healthy' });
    expect(byName.keyed).toMatchObject({ status: 'healthy' });
    expect(byName.ollama).toMatchObject({ status: 'unhealthy', error: expect.stringContaining('/api/tags') });
    for (const p of providers) expect(p.latency_ms).toBeGreaterThanOrEqual(0);
    // The keyed provider was checked with its key.
    expect(stub.requests.filter((r) => r.path === '/v1/models').every((r) => r.authorization === `Bearer ${STUB_KEY}`)).toBe(true);
  });
});

describe('GET /providers', () => {
  it('lists every provider by priority with its state and defaults, naming key variables but never keys', async () => {
    const res = await app.request('/api/v1/providers');
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).not.toContain(STUB_KEY);
    const { providers } = JSON.parse(text) as { providers: Provider[] };
    expect(providers.map((p) => p.name)).toEqual(['lab', 'ollama', 'openai', 'keyed', 'mock']);
    expect(providers.find((p) => p.name === 'openai')).toMatchObject({ enabled: false, api_key_env: 'OPENAI_API_KEY', api_key_set: false });
    expect(providers.find((p) => p.name === 'keyed')).toMatchObject({ enabled: true, api_key_env: 'STUB_KEY', api_key_set: true });
    expect(providers.find((p) => p.name === 'mock')).toMatchObject({ default_for: ['llm', 'embedding'] });
    // The current status: the last live check (here /models/health, above); none for a disabled provider.
    expect(providers.find((p) => p.name === 'lab')?.last_check).toMatchObject({ status: 'healthy', checked_at: expect.any(String) });
    expect(providers.find((p) => p.name === 'ollama')?.last_check).toMatchObject({ status: 'unhealthy' });
    expect(providers.find((p) => p.name === 'openai')?.last_check).toBeNull();
  });

  it('shows one provider with its models and a live check; a disabled one says why', async () => {
    const lab = await get<Provider & { models: Model[]; health: { status: string } }>('/api/v1/providers/lab');
    expect(lab.models.map((m) => m.name)).toEqual(['old-llm', 'new-llm']);
    expect(lab.health.status).toBe('healthy');
    const openai = await get<{ health: { status: string; error: string } }>('/api/v1/providers/openai');
    expect(openai.health).toMatchObject({ status: 'unhealthy', error: 'disabled: OPENAI_API_KEY is not set' });
    await get('/api/v1/providers/ghost', 404);
  });

  it('lists the models of one provider, deprecated ones included and marked', async () => {
    const { models } = await get<{ models: Model[] }>('/api/v1/providers/lab/models');
    expect(models.map((m) => [m.name, m.deprecated])).toEqual([
      ['old-llm', true],
      ['new-llm', false],
    ]);
    await get('/api/v1/providers/ghost/models', 404);
  });
});
