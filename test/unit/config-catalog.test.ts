import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtInCatalog, findCatalogFile, loadCatalog, parseCatalogToml } from '../../src/config/catalog';
import { ConfigError } from '../../src/config/errors';

let root: string;
let cwd: string;
let homeDir: string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-catalog-'));
  cwd = path.join(root, 'cwd');
  homeDir = path.join(root, 'home');
  fs.mkdirSync(cwd);
  fs.mkdirSync(path.join(homeDir, '.kgrag'), { recursive: true });
});

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const minimalCatalog = (llmModel: string) => `
[[providers]]
name = "mock"
type = "mock"
[[providers.models]]
name = "${llmModel}"
model_type = "llm"
[[providers.models]]
name = "mock-embedding"
model_type = "embedding"
capabilities = { embedding_dimension = 32 }
`;

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('models.toml lookup order', () => {
  test('SERVICE_MODELS_CONFIG wins over ./models.toml, which wins over ~/.kgrag/models.toml, then built-in', () => {
    const explicit = path.join(root, 'custom.toml');
    const local = path.join(cwd, 'models.toml');
    const home = path.join(homeDir, '.kgrag', 'models.toml');
    fs.writeFileSync(explicit, minimalCatalog('explicit'));
    fs.writeFileSync(local, minimalCatalog('local'));
    fs.writeFileSync(home, minimalCatalog('home'));
    const opts = { cwd, homeDir };

    expect(loadCatalog({ SERVICE_MODELS_CONFIG: explicit }, opts)).toMatchObject({ source: explicit, defaults: { llm_model: 'explicit' } });
    expect(loadCatalog({}, opts)).toMatchObject({ source: local, defaults: { llm_model: 'local' } });
    fs.rmSync(local);
    expect(loadCatalog({}, opts)).toMatchObject({ source: home, defaults: { llm_model: 'home' } });
    fs.rmSync(home);
    expect(findCatalogFile({}, opts)).toBeNull();
    expect(loadCatalog({}, opts).source).toBe('built-in');
  });

  test('a relative SERVICE_MODELS_CONFIG is resolved against the working directory', () => {
    fs.writeFileSync(path.join(cwd, 'alt.toml'), minimalCatalog('alt'));
    expect(findCatalogFile({ SERVICE_MODELS_CONFIG: 'alt.toml' }, { cwd, homeDir })).toBe(path.join(cwd, 'alt.toml'));
  });

  test('a SERVICE_MODELS_CONFIG naming a missing file is a problem naming the variable', () => {
    const missing = path.join(root, 'nope.toml');
    expect(problemsOf(() => loadCatalog({ SERVICE_MODELS_CONFIG: missing }, { cwd, homeDir }))).toEqual([
      `SERVICE_MODELS_CONFIG: file not found: ${missing}`,
    ]);
  });
});

describe('models.toml schema', () => {
  test('a catalog with every key, capabilities and cost parses; omitted keys get their defaults', () => {
    const catalog = parseCatalogToml(
      `
[defaults]
llm_provider = "acme"
llm_model = "acme-large"
embedding_provider = "acme"
embedding_model = "acme-embed"

[[providers]]
name = "acme"
display_name = "Acme AI"
type = "openai"
api_base = "https://llm.acme.test/v1/"
api_key_env = "ACME_KEY"
enabled = true
priority = 5
description = "Acme's OpenAI-compatible gateway"

[[providers.models]]
name = "acme-large"
display_name = "Acme Large"
model_type = "llm"
description = "big"
deprecated = false
tags = ["chat", "vision"]
[providers.models.capabilities]
context_length = 200000
max_output_tokens = 8192
supports_vision = true
supports_function_calling = true
supports_json_mode = true
supports_streaming = true
supports_system_message = false
embedding_dimension = 0
[providers.models.cost]
input_per_1k = 0.003
output_per_1k = 0.015
embedding_per_1k = 0
image_per_unit = 0.0048

[[providers.models]]
name = "acme-embed"
model_type = "embedding"
[providers.models.capabilities]
embedding_dimension = 1024
`,
      'test.toml',
      { ACME_KEY: 'k-123' },
    );
    expect(catalog.defaults).toEqual({
      llm_provider: 'acme',
      llm_model: 'acme-large',
      embedding_provider: 'acme',
      embedding_model: 'acme-embed',
    });
    const [acme] = catalog.providers;
    expect(acme).toMatchObject({
      name: 'acme',
      display_name: 'Acme AI',
      type: 'openai',
      api_base: 'https://llm.acme.test/v1',
      api_key_env: 'ACME_KEY',
      api_key: 'k-123',
      enabled: true,
      priority: 5,
    });
    expect(acme.models[0]).toEqual({
      name: 'acme-large',
      display_name: 'Acme Large',
      model_type: 'llm',
      description: 'big',
      deprecated: false,
      tags: ['chat', 'vision'],
      capabilities: {
        context_length: 200000,
        max_output_tokens: 8192,
        supports_vision: true,
        supports_function_calling: true,
        supports_json_mode: true,
        supports_streaming: true,
        supports_system_message: false,
        embedding_dimension: 0,
      },
      cost: { input_per_1k: 0.003, output_per_1k: 0.015, embedding_per_1k: 0, image_per_unit: 0.0048 },
    });
    expect(acme.models[1]).toEqual({
      name: 'acme-embed',
      display_name: 'acme-embed',
      model_type: 'embedding',
      description: '',
      deprecated: false,
      tags: [],
      capabilities: {
        context_length: 8192,
        max_output_tokens: 0,
        supports_vision: false,
        supports_function_calling: false,
        supports_json_mode: false,
        supports_streaming: true,
        supports_system_message: true,
        embedding_dimension: 1024,
      },
      cost: { input_per_1k: 0, output_per_1k: 0, embedding_per_1k: 0, image_per_unit: 0 },
    });
  });

  test('a provider whose api key variable is unset is listed but disabled, and its key stays null', () => {
    const catalog = builtInCatalog({});
    expect(catalog.providers.find((p) => p.name === 'openai')).toMatchObject({
      enabled: false,
      api_key: null,
      api_key_env: 'OPENAI_API_KEY',
    });
    expect(builtInCatalog({ OPENAI_API_KEY: 'sk-x' }).providers.find((p) => p.name === 'openai')).toMatchObject({
      enabled: true,
      api_key: 'sk-x',
    });
  });

  test('the ollama api_base comes from OLLAMA_HOST, else localhost:11434', () => {
    const base = (env: Record<string, string>) => builtInCatalog(env).providers.find((p) => p.name === 'ollama')?.api_base;
    expect(base({})).toBe('http://localhost:11434');
    expect(base({ OLLAMA_HOST: '10.0.0.5:11434' })).toBe('http://10.0.0.5:11434');
    expect(base({ OLLAMA_HOST: 'https://ollama.internal/' })).toBe('https://ollama.internal');
  });

  test('without [defaults] a keyed hosted provider, else the local runtime, else the mock, else the lowest priority is the default', () => {
    expect(parseCatalogToml(minimalCatalog('m1'), 't', {}).defaults).toEqual({
      llm_provider: 'mock',
      llm_model: 'm1',
      embedding_provider: 'mock',
      embedding_model: 'mock-embedding',
    });
    const noMock = `
[[providers]]
name = "far"
type = "ollama"
priority = 50
models = [{ name = "far-llm", model_type = "llm" }]
[[providers]]
name = "near"
type = "ollama"
priority = 1
models = [{ name = "near-llm", model_type = "llm" }, { name = "near-emb", model_type = "embedding", capabilities = { embedding_dimension = 8 } }]
`;
    expect(parseCatalogToml(noMock, 't', {}).defaults).toEqual({
      llm_provider: 'near',
      llm_model: 'near-llm',
      embedding_provider: 'near',
      embedding_model: 'near-emb',
    });
    const hostedAndLocal = `${minimalCatalog('m1')}
[[providers]]
name = "hosted"
type = "openai"
api_base = "http://127.0.0.1:1/v1"
api_key_env = "HOSTED_KEY"
priority = 90
models = [{ name = "h-llm", model_type = "llm" }, { name = "h-emb", model_type = "embedding", capabilities = { embedding_dimension = 8 } }]
[[providers]]
name = "local"
type = "ollama"
models = [{ name = "l-llm", model_type = "llm" }]
`;
    // The local runtime serves no embeddings here: they come from the next choice of the rule, the mock.
    expect(parseCatalogToml(hostedAndLocal, 't', {}).defaults).toMatchObject({ llm_provider: 'local', embedding_provider: 'mock' });
    expect(parseCatalogToml(hostedAndLocal, 't', { HOSTED_KEY: 'k' }).defaults).toEqual({
      llm_provider: 'hosted',
      llm_model: 'h-llm',
      embedding_provider: 'hosted',
      embedding_model: 'h-emb',
    });
  });

  test('an invalid catalog reports every problem with its key path and provider name', () => {
    const problems = problemsOf(() =>
      parseCatalogToml(
        `
[[providers]]
name = "bad"
type = "anthropic"
[[providers.models]]
name = "m"
model_type = "llm"
capabilities = { context_length = "large" }
[[providers.models]]
name = "e"
model_type = "embedding"
colour = "blue"
`,
        'bad.toml',
        {},
      ),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^bad\.toml: providers\[0\] \(bad\)\.type: unknown provider type/),
        expect.stringMatching(/^bad\.toml: providers\[0\] \(bad\)\.models\[0\]\.capabilities\.context_length: /),
        expect.stringMatching(/^bad\.toml: providers\[0\] \(bad\)\.models\[1\]: Unrecognized key: "colour"/),
      ]),
    );
  });

  test('an embedding model without a dimension is a problem', () => {
    expect(
      problemsOf(() =>
        parseCatalogToml(`[[providers]]\nname = "x"\ntype = "mock"\nmodels = [{ name = "e", model_type = "embedding" }]`, 'f', {}),
      ),
    ).toEqual([expect.stringMatching(/providers\[0\] \(x\)\.models\[0\]\.capabilities\.embedding_dimension: must be greater than 0/)]);
  });

  test('[defaults] naming an unknown provider is a problem', () => {
    expect(problemsOf(() => parseCatalogToml(`[defaults]\nllm_provider = "ghost"\n${minimalCatalog('m')}`, 'f', {}))).toEqual([
      "f: defaults.llm_provider: unknown provider 'ghost'",
    ]);
  });

  test('a TOML syntax error reports the line', () => {
    expect(problemsOf(() => parseCatalogToml('[[providers]\nname = "x"', 'broken.toml', {}))).toEqual([
      expect.stringMatching(/^broken\.toml: invalid TOML at line 1, column \d+/),
    ]);
  });

  test('the models.toml at the repository root describes exactly the built-in catalog', () => {
    const file = path.join(__dirname, '../../models.toml');
    const fromFile = parseCatalogToml(fs.readFileSync(file, 'utf8'), 'file', {});
    const builtIn = builtInCatalog({});
    expect({ ...fromFile, source: 'x' }).toEqual({ ...builtIn, source: 'x' });
    expect(fromFile.defaultsGiven).toEqual({ llm: false, embedding: false });
    expect(fromFile.defaults.llm_provider).toBe('ollama');
  });
});
