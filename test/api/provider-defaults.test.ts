import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app';
import { closedPortUrl, type ProviderStub, startProviderStub } from '../fixtures/provider-stub';

/**
 * The built-in default provider (docs/api.md §1.2), against a local server speaking the Ollama and OpenAI
 * protocols: the hosted OpenAI-type provider when its key is set, else the local runtime, probed once at
 * start-up; an unreachable runtime leaves the service up and says so.
 */

jest.setTimeout(60_000);

const HOSTED_KEY = 'sk-hosted-stub-5f1e2d';
let stub: ProviderStub;
let dir: string;
let catalog: string;

beforeAll(async () => {
  stub = await startProviderStub({ apiKey: HOSTED_KEY });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-defaults-'));
  catalog = path.join(dir, 'models.toml');
  fs.writeFileSync(
    catalog,
    `
[[providers]]
name = "mock"
type = "mock"
[[providers.models]]
name = "mock-llm"
model_type = "llm"
[[providers.models]]
name = "mock-embedding"
model_type = "embedding"
capabilities = { embedding_dimension = 256 }

[[providers]]
name = "hosted"
type = "openai"
api_base = "${stub.url}/v1"
api_key_env = "STUB_HOSTED_KEY"
priority = 20
models = [{ name = "gpt-stub", model_type = "llm" }, { name = "emb-stub", model_type = "embedding", capabilities = { embedding_dimension = 8 } }]

[[providers]]
name = "local"
type = "ollama"
priority = 10
models = [{ name = "llama-stub", model_type = "llm" }, { name = "nomic-stub", model_type = "embedding", capabilities = { embedding_dimension = 8 } }]
`,
  );
});

afterAll(async () => {
  await stub.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The test defaults select the mock explicitly; blank values unset them, so the built-in rule decides. */
const builtInDefault = (env: Record<string, string>) =>
  startTestApp({ SERVICE_MODELS_CONFIG: catalog, SERVICE_LLM_PROVIDER: '', SERVICE_EMBEDDING_PROVIDER: '', OLLAMA_HOST: stub.url, ...env });

/**
 * Starts the app and returns the probes it sent the provider (GET requests). On a shared Neo4j the start-up
 * recovery and the started workers may take up work other apps left there and call the provider for it (POST
 * requests, chat or embeddings): those calls are not probes.
 */
async function startedProbes(env: Record<string, string>): Promise<{ app: TestApp; probes: string[] }> {
  const before = stub.requests.length;
  const app = await builtInDefault(env);
  const probes = stub.requests
    .slice(before)
    .filter((r) => r.method === 'GET')
    .map((r) => `${r.method} ${r.path}`);
  return { app, probes };
}

async function ask(app: TestApp): Promise<{ answer: string; stats: { llm_provider: string; llm_model: string } }> {
  const res = await app.request('/api/v1/query', { method: 'POST', json: { query: 'Who answers?', mode: 'bypass' } });
  expect(res.status).toBe(200);
  return (await res.json()) as { answer: string; stats: { llm_provider: string; llm_model: string } };
}

describe('the built-in default provider', () => {
  it('is the local runtime without a hosted key: probed once at start-up, then used for answers and embeddings', async () => {
    const { app, probes } = await startedProbes({});
    try {
      expect(probes).toEqual(['GET /api/tags']);
      const health = (await (await app.request('/health')).json()) as Record<string, unknown>;
      expect(health).toMatchObject({ llm_provider_name: 'local', components: { llm_provider: true }, warnings: [] });

      const body = await ask(app);
      expect(body.answer).toContain('The stub answers.');
      expect(body.stats).toMatchObject({ llm_provider: 'local', llm_model: 'llama-stub' });
      expect(stub.modelsAt('/api/chat')).toContain('llama-stub');

      // A naive query embeds the question (the stub writes no extraction records, so a document would fail).
      const naive = await app.request('/api/v1/query', { method: 'POST', json: { query: 'Who wrote the notes?', mode: 'naive' } });
      expect(naive.status).toBe(200);
      expect(stub.modelsAt('/api/embed')).toContain('nomic-stub');
      expect(stub.modelsAt('/v1/chat/completions')).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('is the hosted OpenAI-type provider when its key is set, called with that key', async () => {
    const before = stub.requests.length;
    const { app, probes } = await startedProbes({ STUB_HOSTED_KEY: HOSTED_KEY });
    try {
      expect(probes).toEqual(['GET /v1/models']);
      const body = await ask(app);
      expect(body.stats).toMatchObject({ llm_provider: 'hosted', llm_model: 'gpt-stub' });
      // The question's own call (started workers may call the provider for work other apps left on a shared Neo4j).
      const calls = stub.requests
        .slice(before)
        .filter((r) => r.path === '/v1/chat/completions' && JSON.stringify(r.body).includes('Who answers?'));
      expect(calls.map((r) => r.body.model)).toEqual(['gpt-stub']);
      expect(calls[0].authorization).toBe(`Bearer ${HOSTED_KEY}`);
      const providers = await (await app.request('/api/v1/providers')).text();
      expect(providers).not.toContain(HOSTED_KEY);
    } finally {
      await app.close();
    }
  });

  it('leaves the service up when the local runtime does not answer, and /health and /models/health say so', async () => {
    const app = await builtInDefault({ OLLAMA_HOST: await closedPortUrl() });
    try {
      const health = (await (await app.request('/health')).json()) as {
        status: string;
        components: Record<string, boolean>;
        warnings: string[];
      };
      expect(health.status).toBe('degraded');
      expect(health.components.llm_provider).toBe(false);
      expect(health.warnings).toEqual([expect.stringMatching(/'local'.*did not answer at start-up.*SERVICE_LLM_PROVIDER=mock/)]);

      const res = await app.request('/api/v1/models/health');
      expect(res.status).toBe(200);
      const { providers } = (await res.json()) as {
        providers: Array<{ name: string; status: string; latency_ms: number; error?: string }>;
      };
      expect(providers.find((p) => p.name === 'local')).toMatchObject({ status: 'unhealthy', error: expect.stringContaining('/api/tags') });
      expect(providers.find((p) => p.name === 'mock')).toMatchObject({ status: 'healthy' });
      for (const p of providers) expect(Number.isInteger(p.latency_ms)).toBe(true);
      const listed = (await (await app.request('/api/v1/providers')).json()) as { providers: Array<{ name: string; last_check: unknown }> };
      expect(listed.providers.find((p) => p.name === 'local')?.last_check).toMatchObject({ status: 'unhealthy' });
    } finally {
      await app.close();
    }
  });

  it('is the mock when chosen explicitly, whatever else is configured', async () => {
    const app = await builtInDefault({ SERVICE_LLM_PROVIDER: 'mock', STUB_HOSTED_KEY: HOSTED_KEY });
    try {
      expect(app.config.llm).toEqual({ provider: 'mock', model: 'mock-llm' });
      expect(app.config.embedding).toMatchObject({ provider: 'mock', model: 'mock-embedding' });
      expect((await ask(app)).stats).toMatchObject({ llm_provider: 'mock', llm_model: 'mock-llm' });
    } finally {
      await app.close();
    }
  });
});
