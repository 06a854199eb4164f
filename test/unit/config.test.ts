import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/load';

/** Every test runs in empty temp dirs so that no models.toml on the machine leaks in. */
let cwd: string;
let homeDir: string;

beforeEach(() => {
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-cfg-cwd-'));
  homeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-cfg-home-'));
});

afterEach(() => {
  fs.rmSync(cwd, { recursive: true, force: true });
  fs.rmSync(homeDir, { recursive: true, force: true });
});

const load = (env: Record<string, string>) => loadConfig(env, { cwd, homeDir });

function problemsOf(env: Record<string, string>): string[] {
  try {
    load(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

const OLLAMA_DEFAULTS_TOML = `
[defaults]
llm_provider = "local"
llm_model = "llama3.2"
embedding_provider = "local"
embedding_model = "nomic-embed-text"

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
name = "local"
type = "ollama"
api_base = "http://127.0.0.1:11434"
[[providers.models]]
name = "llama3.2"
model_type = "llm"
[[providers.models]]
name = "nomic-embed-text"
model_type = "embedding"
capabilities = { embedding_dimension = 768 }
`;

describe('loadConfig defaults', () => {
  test('an empty environment gives the documented defaults and the local runtime (Ollama) for both kinds', () => {
    const config = load({});
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { version: string };
    expect(config).toMatchObject({
      version: pkg.version,
      host: '0.0.0.0',
      port: 8080,
      logLevel: 'info',
      workerThreads: 48,
      storage: { mode: 'memory' },
      qdrant: null,
      redisUrl: null,
      llm: { provider: 'ollama', model: 'llama3.2' },
      embedding: { provider: 'ollama', model: 'nomic-embed-text', dimension: 768 },
      mockLatencyMs: 0,
      mockTokenDelayMs: 0,
      consoleDir: path.resolve(__dirname, '../../web/dist'),
      ingest: {
        chunkTokens: 1200,
        chunkOverlapTokens: 100,
        asyncThresholdBytes: 64 * 1024,
        maxGleaning: 1,
        llmConcurrency: 8,
        embeddingConcurrency: 4,
        llmTimeoutMs: 120000,
        llmRetries: 2,
        summaryFragmentThreshold: 7,
        summaryTokenThreshold: 1200,
        summaryRelationshipFragmentThreshold: 30,
        summaryRelationshipTokenThreshold: 600,
        scanRoots: [],
      },
      rateLimits: { windowMs: 60000, upload: 10, query: 60, graph: 100 },
      errorTypeBase: 'https://kgrag.dev/problems',
      defaultWorkspaceId: 'default',
      instanceId: `${os.hostname()}-${process.pid}`,
    });
    expect(config.catalog.source).toBe('built-in');
    expect(config.catalog.providers.map((p) => p.name)).toEqual(['mock', 'openai', 'ollama']);
  });

  test('blank variables count as unset', () => {
    expect(load({ PORT: '', SERVICE_LLM_PROVIDER: '  ' })).toMatchObject({ port: 8080, llm: { provider: 'ollama' } });
  });

  test("with the hosted provider's key set, the hosted provider is the default of both kinds", () => {
    expect(load({ OPENAI_API_KEY: 'sk-test' })).toMatchObject({
      llm: { provider: 'openai', model: 'gpt-4o-mini' },
      embedding: { provider: 'openai', model: 'text-embedding-3-small', dimension: 1536 },
    });
  });

  test('SERVICE_LLM_PROVIDER=mock selects the offline provider, and embeddings follow it unless set themselves', () => {
    expect(load({ SERVICE_LLM_PROVIDER: 'mock' })).toMatchObject({
      llm: { provider: 'mock', model: 'mock-llm' },
      embedding: { provider: 'mock', model: 'mock-embedding', dimension: 256 },
    });
    expect(load({ SERVICE_LLM_PROVIDER: 'mock', SERVICE_EMBEDDING_PROVIDER: 'ollama' }).embedding.provider).toBe('ollama');
    expect(load({ SERVICE_LLM_PROVIDER: 'mock', OPENAI_API_KEY: 'sk-test' }).embedding.provider).toBe('mock');
  });

  test('numeric and list variables are parsed; scan roots are split on the path delimiter and resolved', () => {
    const config = load({
      HOST: '127.0.0.1',
      PORT: '9000',
      WORKER_THREADS: '3',
      SERVICE_MOCK_LATENCY_MS: '25',
      SERVICE_MOCK_TOKEN_DELAY_MS: '15',
      SERVICE_CONSOLE_DIR: 'public/console',
      SERVICE_LLM_CONCURRENCY: '2',
      SERVICE_SCAN_ROOTS: ['docs', '/srv/data'].join(path.delimiter),
      SERVICE_ERROR_TYPE_BASE: 'https://errors.example.com/p/',
      QDRANT_URL: 'http://localhost:6333/',
      REDIS_URL: 'redis://localhost:6379',
    });
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 9000,
      workerThreads: 3,
      mockLatencyMs: 25,
      mockTokenDelayMs: 15,
      consoleDir: path.join(cwd, 'public/console'),
      ingest: { llmConcurrency: 2, scanRoots: [path.join(cwd, 'docs'), path.resolve('/srv/data')] },
      errorTypeBase: 'https://errors.example.com/p',
      qdrant: {
        urls: ['http://localhost:6333'],
        apiKey: null,
        shards: null,
        replicationFactor: null,
        writeConsistency: null,
        readConsistency: null,
      },
      redisUrl: 'redis://localhost:6379',
    });
  });
});

describe('loadConfig Qdrant', () => {
  test('lists the nodes of a cluster and the layout of the collections it creates', () => {
    const config = load({
      QDRANT_URL: 'http://q1:6333/, http://q2:6333,http://q3:6333',
      QDRANT_SHARDS: '3',
      QDRANT_REPLICATION_FACTOR: '2',
      QDRANT_WRITE_CONSISTENCY: '1',
      QDRANT_READ_CONSISTENCY: 'Majority',
    });
    expect(config.qdrant).toEqual({
      urls: ['http://q1:6333', 'http://q2:6333', 'http://q3:6333'],
      apiKey: null,
      shards: 3,
      replicationFactor: 2,
      writeConsistency: 1,
      readConsistency: 'majority',
    });
    expect(
      load({ QDRANT_URL: 'http://q1:6333', QDRANT_REPLICATION_FACTOR: '3', QDRANT_READ_CONSISTENCY: '2' }).qdrant?.readConsistency,
    ).toBe(2);
  });

  test('refuses a bad node, more confirmations or reads than copies, and an unknown read consistency', () => {
    expect(problemsOf({ QDRANT_URL: 'http://q1:6333,q2:6333' })).toEqual([
      expect.stringMatching(/^QDRANT_URL: must be a URL .*comma-separated/),
    ]);
    expect(problemsOf({ QDRANT_URL: 'http://q1:6333', QDRANT_REPLICATION_FACTOR: '2', QDRANT_WRITE_CONSISTENCY: '3' })).toEqual([
      expect.stringMatching(/^QDRANT_WRITE_CONSISTENCY: .*QDRANT_REPLICATION_FACTOR \(2\), got 3$/),
    ]);
    expect(problemsOf({ QDRANT_URL: 'http://q1:6333', QDRANT_READ_CONSISTENCY: '2' })).toEqual([
      expect.stringMatching(/^QDRANT_READ_CONSISTENCY: .*got '2'$/),
    ]);
    expect(problemsOf({ QDRANT_URL: 'http://q1:6333', QDRANT_READ_CONSISTENCY: 'most' })).toHaveLength(1);
    expect(problemsOf({ QDRANT_URL: 'http://q1:6333', QDRANT_SHARDS: '0' })).toEqual([
      expect.stringMatching(/^QDRANT_SHARDS: must be between 1/),
    ]);
  });
});

describe('loadConfig ports and log levels', () => {
  test('SERVICE_PORT is used when PORT is unset, and PORT wins when both are set', () => {
    expect(load({ SERVICE_PORT: '7000' }).port).toBe(7000);
    expect(load({ SERVICE_PORT: '7000', PORT: '7001' }).port).toBe(7001);
  });

  test.each([
    [{ RUST_LOG: 'debug' }, 'debug'],
    [{ RUST_LOG: 'kgrag=debug,info' }, 'debug'],
    [{ RUST_LOG: 'info,kgrag::ingest=trace' }, 'trace'],
    [{ RUST_LOG: 'tower_http=trace' }, 'info'],
    [{ RUST_LOG: 'warn,tower_http=trace' }, 'warn'],
    [{ RUST_LOG: 'off' }, 'silent'],
    [{ LOG_LEVEL: 'error', RUST_LOG: 'debug' }, 'error'],
  ])('log filter %j gives level %s', (env, level) => {
    expect(load(env).logLevel).toBe(level);
  });

  test('an unknown log level is a problem naming the variable', () => {
    expect(problemsOf({ RUST_LOG: 'kgrag=loud' })).toEqual([expect.stringMatching(/^RUST_LOG: unknown log level 'loud'/)]);
    expect(problemsOf({ LOG_LEVEL: 'verbose' })).toEqual([expect.stringMatching(/^LOG_LEVEL: /)]);
  });
});

describe('loadConfig problems', () => {
  test('a bad PORT, a bad WORKER_THREADS and an unknown provider yield one ConfigError listing all three', () => {
    let error: unknown;
    try {
      load({ PORT: 'eighty', WORKER_THREADS: '0', SERVICE_LLM_PROVIDER: 'nope' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(3);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^PORT: must be a whole number, got 'eighty'/),
        expect.stringMatching(/^WORKER_THREADS: must be between 1 and 1024, got 0/),
        expect.stringMatching(/^SERVICE_LLM_PROVIDER: unknown provider 'nope'/),
      ]),
    );
    expect((error as Error).message.split('\n')).toHaveLength(4);
  });

  test('a problem in an alias variable names the alias the user set', () => {
    expect(problemsOf({ SERVICE_PORT: '70000', MODEL_PROVIDER: 'nope' })).toEqual([
      expect.stringMatching(/^SERVICE_PORT: must be between 0 and 65535/),
      expect.stringMatching(/^MODEL_PROVIDER: unknown provider 'nope'/),
    ]);
  });

  test('a postgresql DATABASE_URL is refused with one line naming the Neo4j and Qdrant variables', () => {
    const problems = problemsOf({ DATABASE_URL: 'postgresql://u:p@db:5432/kg?sslmode=require' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).not.toContain('\n');
    expect(problems[0]).toMatch(/^DATABASE_URL: .*Neo4j \(\+ Qdrant/);
    expect(problems[0]).toContain('NEO4J_URI');
    expect(problems[0]).toContain('DATABASE_URL=neo4j://');
    expect(problems[0]).toContain('QDRANT_URL');
    expect(problemsOf({ DATABASE_URL: 'postgres://db/kg' })).toHaveLength(1);
  });

  test('a DATABASE_URL with another unsupported scheme is a problem', () => {
    expect(problemsOf({ DATABASE_URL: 'mysql://db/kg' })).toEqual([expect.stringMatching(/^DATABASE_URL: unsupported URL scheme 'mysql'/)]);
  });

  test('chunk overlap not smaller than the chunk size is a problem', () => {
    expect(problemsOf({ SERVICE_CHUNK_TOKENS: '100', SERVICE_CHUNK_OVERLAP_TOKENS: '100' })).toEqual([
      expect.stringMatching(/^SERVICE_CHUNK_OVERLAP_TOKENS: must be smaller than SERVICE_CHUNK_TOKENS/),
    ]);
  });
});

describe('loadConfig storage', () => {
  test('a neo4j DATABASE_URL selects neo4j mode with credentials and database taken from the URL', () => {
    const config = load({ DATABASE_URL: 'neo4j+s://neo:s%40cret@db.example.com:7687/movies' });
    expect(config.storage).toEqual({
      mode: 'neo4j',
      uri: 'neo4j+s://db.example.com:7687',
      user: 'neo',
      password: 's@cret',
      database: 'movies',
    });
  });

  test('NEO4J_URI wins over DATABASE_URL and NEO4J_USER / NEO4J_PASSWORD / NEO4J_DATABASE win over URL parts', () => {
    const config = load({
      NEO4J_URI: 'bolt://url-user:url-pass@localhost:7687',
      NEO4J_USER: 'neo4j',
      NEO4J_PASSWORD: 'pw',
      NEO4J_DATABASE: 'kg',
      DATABASE_URL: 'postgresql://ignored/db',
    });
    expect(config.storage).toEqual({ mode: 'neo4j', uri: 'bolt://localhost:7687', user: 'neo4j', password: 'pw', database: 'kg' });
  });

  test('a bolt URL without credentials leaves user and password null (auth off)', () => {
    expect(load({ NEO4J_URI: 'bolt://127.0.0.1:7687' }).storage).toEqual({
      mode: 'neo4j',
      uri: 'bolt://127.0.0.1:7687',
      user: null,
      password: null,
      database: null,
    });
  });
});

describe('loadConfig provider and model precedence', () => {
  test('catalog [defaults] override the built-in mock defaults', () => {
    fs.writeFileSync(path.join(cwd, 'models.toml'), OLLAMA_DEFAULTS_TOML);
    const config = load({});
    expect(config.llm).toEqual({ provider: 'local', model: 'llama3.2' });
    expect(config.embedding).toEqual({ provider: 'local', model: 'nomic-embed-text', dimension: 768 });
  });

  test('environment variables override catalog [defaults]', () => {
    fs.writeFileSync(path.join(cwd, 'models.toml'), OLLAMA_DEFAULTS_TOML);
    const config = load({ SERVICE_LLM_PROVIDER: 'mock', SERVICE_EMBEDDING_PROVIDER: 'mock', SERVICE_EMBEDDING_DIMENSION: '64' });
    expect(config.llm).toEqual({ provider: 'mock', model: 'mock-llm' });
    expect(config.embedding).toEqual({ provider: 'mock', model: 'mock-embedding', dimension: 64 });
  });

  test('an env model for an ollama provider may be one the catalog does not list', () => {
    fs.writeFileSync(path.join(cwd, 'models.toml'), OLLAMA_DEFAULTS_TOML);
    expect(load({ SERVICE_DEFAULT_LLM_MODEL: 'mistral:7b' }).llm).toEqual({ provider: 'local', model: 'mistral:7b' });
  });

  test('an unlisted embedding model needs SERVICE_EMBEDDING_DIMENSION', () => {
    fs.writeFileSync(path.join(cwd, 'models.toml'), OLLAMA_DEFAULTS_TOML);
    expect(problemsOf({ SERVICE_EMBEDDING_MODEL: 'bge-m3' })).toEqual([expect.stringMatching(/^SERVICE_EMBEDDING_DIMENSION: required/)]);
    expect(load({ SERVICE_EMBEDDING_MODEL: 'bge-m3', SERVICE_EMBEDDING_DIMENSION: '1024' }).embedding).toEqual({
      provider: 'local',
      model: 'bge-m3',
      dimension: 1024,
    });
  });

  test('the mock provider refuses model names it does not have', () => {
    expect(problemsOf({ SERVICE_LLM_PROVIDER: 'mock', SERVICE_DEFAULT_LLM_MODEL: 'gpt-4o' })).toEqual([
      expect.stringMatching(/^SERVICE_DEFAULT_LLM_MODEL: provider 'mock' has no llm model 'gpt-4o'/),
    ]);
  });

  test('an embedding model given as the LLM is a problem', () => {
    expect(problemsOf({ MODEL_PROVIDER: 'mock', CHAT_MODEL: 'mock-embedding' })).toEqual([
      expect.stringMatching(/^CHAT_MODEL: 'mock-embedding' is an embedding model/),
    ]);
  });

  test('an openai provider without its key is refused, naming the key variable', () => {
    expect(problemsOf({ SERVICE_LLM_PROVIDER: 'openai' })).toEqual([
      expect.stringMatching(/^SERVICE_LLM_PROVIDER: provider 'openai' is disabled \(set OPENAI_API_KEY\)/),
    ]);
    const config = load({ SERVICE_LLM_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-test' });
    expect(config.llm).toEqual({ provider: 'openai', model: 'gpt-4o-mini' });
    expect(config.catalog.providers.find((p) => p.name === 'openai')).toMatchObject({ enabled: true, api_key: 'sk-test' });
  });
});

describe('loadConfig aliases', () => {
  test('LightRAG aliases are accepted when the canonical variables are unset', () => {
    const config = load({
      MODEL_PROVIDER: 'ollama',
      CHAT_MODEL: 'qwen2.5:7b',
      EMBEDDING_PROVIDER: 'ollama',
      EMBEDDING_MODEL: 'mxbai-embed-large',
      EMBEDDING_DIMENSION: '512',
    });
    expect(config.llm).toEqual({ provider: 'ollama', model: 'qwen2.5:7b' });
    expect(config.embedding).toEqual({ provider: 'ollama', model: 'mxbai-embed-large', dimension: 512 });
  });

  test('canonical variables win over their aliases', () => {
    const config = load({
      SERVICE_LLM_PROVIDER: 'mock',
      MODEL_PROVIDER: 'ollama',
      SERVICE_DEFAULT_LLM_MODEL: 'mock-llm',
      CHAT_MODEL: 'llama3.2',
      SERVICE_EMBEDDING_PROVIDER: 'mock',
      EMBEDDING_PROVIDER: 'ollama',
      SERVICE_EMBEDDING_MODEL: 'mock-embedding',
      EMBEDDING_MODEL: 'nomic-embed-text',
      SERVICE_EMBEDDING_DIMENSION: '128',
      EMBEDDING_DIMENSION: '768',
    });
    expect(config.llm).toEqual({ provider: 'mock', model: 'mock-llm' });
    expect(config.embedding).toEqual({ provider: 'mock', model: 'mock-embedding', dimension: 128 });
  });

  test('SERVICE_DEFAULT_LLM_PROVIDER selects the provider, and SERVICE_LLM_PROVIDER wins over it', () => {
    expect(load({ SERVICE_DEFAULT_LLM_PROVIDER: 'ollama' }).llm).toEqual({ provider: 'ollama', model: 'llama3.2' });
    expect(load({ SERVICE_DEFAULT_LLM_PROVIDER: 'ollama', SERVICE_LLM_PROVIDER: 'mock' }).llm.provider).toBe('mock');
  });
});
