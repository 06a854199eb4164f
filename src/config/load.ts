import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { authEnvSchema, resolveAuth } from './auth';
import { type CatalogLookupOptions, type Env, loadCatalog } from './catalog';
import { ConfigError } from './errors';
import { parseLogFilter } from './log-level';
import { resolveModels } from './models';
import { resolveQdrant } from './qdrant';
import { resolveRerank } from './rerank';
import { resolveStorage } from './storage';
import { resolveTracing } from './tracing';
import { deepFreeze } from './freeze';
import type { AppConfig, ConfigValues, ModelCatalog } from './types';

export { ConfigError } from './errors';

/**
 * The only reader of process.env. Parses every variable once, collects every problem, and throws one
 * ConfigError listing them all. Precedence for providers and models: env > models.toml [defaults] > built-in.
 */

/** Alias variables, in order of precedence after the canonical name (canonical wins when both are set). */
const ALIASES: Record<string, string[]> = {
  PORT: ['SERVICE_PORT'],
  SERVICE_LLM_PROVIDER: ['SERVICE_DEFAULT_LLM_PROVIDER', 'MODEL_PROVIDER'],
  SERVICE_DEFAULT_LLM_MODEL: ['CHAT_MODEL'],
  SERVICE_EMBEDDING_PROVIDER: ['EMBEDDING_PROVIDER'],
  SERVICE_EMBEDDING_MODEL: ['EMBEDDING_MODEL'],
  SERVICE_EMBEDDING_DIMENSION: ['EMBEDDING_DIMENSION'],
  TRACING_BASE_URL: ['TRACING_HOST'],
};

const DEFAULT_ASYNC_THRESHOLD_BYTES = 64 * 1024;

function intVar(min: number, max = Number.MAX_SAFE_INTEGER) {
  return z
    .string()
    .transform((raw, ctx) => {
      const value = raw.trim();
      const n = /^[0-9]+$/.test(value) ? Number(value) : NaN;
      if (!Number.isSafeInteger(n)) {
        ctx.issues.push({ code: 'custom', input: raw, message: `must be a whole number, got '${raw}'` });
        return z.NEVER;
      }
      if (n < min || n > max) {
        const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `between ${min} and ${max}`;
        ctx.issues.push({ code: 'custom', input: raw, message: `must be ${range}, got ${n}` });
        return z.NEVER;
      }
      return n;
    })
    .optional();
}

/** A URL with one of `schemes`; with `list`, one or more of them, comma-separated. */
function urlVar(schemes: string[], { list = false } = {}) {
  const valid = (v: string) => {
    try {
      return schemes.includes(new URL(v.trim()).protocol.replace(/:$/, ''));
    } catch {
      return false;
    }
  };
  const which = `a URL with scheme ${schemes.map((s) => `${s}://`).join(' or ')}`;
  return z
    .string()
    .trim()
    .refine(
      (v) => (list ? v.split(',').every(valid) : valid(v)),
      list ? `must be ${which}, or several comma-separated` : `must be ${which}`,
    )
    .optional();
}

/**
 * Summary thresholds per record kind (docs/architecture.md §5.5): an entity is summarised from its 8th
 * fragment; a relationship's fragments are single sentences, so it waits for about 30 of them (by tokens).
 */
const DEFAULT_LLM_CONCURRENCY = 8;
/** Documents in flight per LLM slot (WORKER_THREADS defaults to this times the LLM concurrency). */
const DOCUMENTS_PER_LLM_SLOT = 6;
/**
 * A workspace's queries running at once per CPU core (SERVICE_QUERIES_RUNNING_PER_WORKSPACE defaults to this
 * times the cores, 4 at least). Retrieval is CPU work in this process and in the database beside it: past two
 * per core, more queries at once only hold more results in memory and lengthen each turn of the event loop.
 * Measured under the mixed load on two cores with Neo4j (README, Mixed load): 8 at once gave event-loop delay
 * p99 of 89 to 107 ms; 4 at once 63 to 77 ms, and 3,247 requests in the measured minute on a fresh database
 * against 2,674 with 8.
 */
const QUERIES_RUNNING_PER_CORE = 2;

const DEFAULT_SUMMARY = {
  entity: { fragments: 7, tokens: 1200 },
  relationship: { fragments: 30, tokens: 600 },
};

const text = () => z.string().trim().min(1).optional();

const envSchema = z.object({
  HOST: text(),
  PORT: intVar(0, 65535),
  LOG_LEVEL: text(),
  RUST_LOG: text(),
  WORKER_THREADS: intVar(1, 1024),
  DATABASE_URL: text(),
  NEO4J_URI: text(),
  NEO4J_USER: text(),
  NEO4J_PASSWORD: z.string().optional(),
  NEO4J_DATABASE: text(),
  QDRANT_URL: urlVar(['http', 'https'], { list: true }),
  QDRANT_API_KEY: text(),
  QDRANT_SHARDS: intVar(1, 1024),
  QDRANT_REPLICATION_FACTOR: intVar(1, 64),
  QDRANT_WRITE_CONSISTENCY: intVar(1, 64),
  QDRANT_READ_CONSISTENCY: text(),
  REDIS_URL: urlVar(['redis', 'rediss']),
  SERVICE_LLM_PROVIDER: text(),
  SERVICE_DEFAULT_LLM_MODEL: text(),
  SERVICE_EMBEDDING_PROVIDER: text(),
  SERVICE_EMBEDDING_MODEL: text(),
  SERVICE_EMBEDDING_DIMENSION: intVar(1, 65536),
  SERVICE_MOCK_LATENCY_MS: intVar(0, 600_000),
  SERVICE_MOCK_TOKEN_DELAY_MS: intVar(0, 10_000),
  SERVICE_CHUNK_TOKENS: intVar(16, 1_000_000),
  SERVICE_CHUNK_OVERLAP_TOKENS: intVar(0, 1_000_000),
  SERVICE_ASYNC_THRESHOLD_BYTES: intVar(0),
  SERVICE_MAX_GLEANING: intVar(0, 10),
  SERVICE_LLM_CONCURRENCY: intVar(1, 1024),
  SERVICE_EMBEDDING_CONCURRENCY: intVar(1, 1024),
  SERVICE_MERGE_BATCH: intVar(1, 256),
  SERVICE_LLM_TIMEOUT_MS: intVar(1, 3_600_000),
  SERVICE_LLM_RETRIES: intVar(0, 10),
  TRACING_PUBLIC_KEY: text(),
  TRACING_SECRET_KEY: text(),
  TRACING_BASE_URL: urlVar(['http', 'https']),
  TRACING_PROJECT_ID: text(),
  SERVICE_TRACING_API: text(),
  SERVICE_SUMMARY_FRAGMENTS: intVar(1, 1000),
  SERVICE_SUMMARY_TOKENS: intVar(1, 1_000_000),
  SERVICE_SUMMARY_RELATIONSHIP_FRAGMENTS: intVar(1, 1000),
  SERVICE_SUMMARY_RELATIONSHIP_TOKENS: intVar(1, 1_000_000),
  SERVICE_SCAN_ROOTS: z.string().optional(),
  SERVICE_RATE_LIMIT_WINDOW_MS: intVar(1000, 86_400_000),
  SERVICE_RATE_LIMIT_UPLOAD: intVar(0),
  SERVICE_RATE_LIMIT_QUERY: intVar(0),
  SERVICE_RATE_LIMIT_GRAPH: intVar(0),
  SERVICE_ERROR_TYPE_BASE: urlVar(['http', 'https']),
  SERVICE_NO_CONTEXT_RESPONSE: text(),
  SERVICE_PROMPTS_DIR: text(),
  SERVICE_DEFAULT_WORKSPACE: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'must be 1-64 letters, digits, "_" or "-"')
    .optional(),
  SERVICE_INSTANCE_ID: text(),
  SERVICE_TASK_LEASE_MS: intVar(1000, 3_600_000),
  SERVICE_TASK_OUTAGE_RETRIES: intVar(0, 1000),
  SERVICE_TASK_OUTAGE_BACKOFF_MS: intVar(10, 3_600_000),
  SERVICE_COMMUNITY_REFRESH_MS: intVar(0, 86_400_000),
  SERVICE_SHUTDOWN_GRACE_MS: intVar(0, 3_600_000),
  SERVICE_MAX_QUERIES_IN_FLIGHT: intVar(0),
  SERVICE_MAX_QUERIES_IN_FLIGHT_PER_WORKSPACE: intVar(0),
  SERVICE_QUERIES_RUNNING_PER_WORKSPACE: intVar(0),
  SERVICE_QUERY_WAIT_MS: intVar(0, 600_000),
  SERVICE_MAX_QUERIES_IN_FLIGHT_PER_TENANT: intVar(0),
  SERVICE_MAX_UPLOADS_IN_FLIGHT: intVar(0),
  SERVICE_MAX_UPLOADS_IN_FLIGHT_PER_WORKSPACE: intVar(0),
  SERVICE_MAX_UPLOADS_IN_FLIGHT_PER_TENANT: intVar(0),
  SERVICE_MAX_READS_RUNNING: intVar(0),
  SERVICE_MAX_READS_RUNNING_PER_TENANT: intVar(0),
  SERVICE_MAX_READS_RUNNING_PER_WORKSPACE: intVar(0),
  SERVICE_READ_WAIT_MS: intVar(0, 600_000),
  SERVICE_MAX_GRAPH_STREAMS: intVar(0),
  SERVICE_MAX_GRAPH_STREAMS_PER_TENANT: intVar(0),
  SERVICE_MAX_GRAPH_STREAMS_PER_WORKSPACE: intVar(0),
  NEO4J_MAX_POOL_SIZE: intVar(2, 10_000),
  NEO4J_ACQUISITION_TIMEOUT_MS: intVar(100, 600_000),
  NEO4J_REQUEST_SESSIONS: intVar(1, 10_000),
  NEO4J_REQUEST_SESSIONS_PER_TENANT: intVar(1, 10_000),
  SERVICE_MAX_QUEUED_DOCUMENTS: intVar(0),
  SERVICE_MAX_QUEUED_DOCUMENTS_PER_WORKSPACE: intVar(0),
  SERVICE_TRUST_PROXY: z.enum(['true', 'false', '1', '0'], { message: 'must be true or false' }).optional(),
  SERVICE_ENTITY_RESOLUTION: z.enum(['true', 'false', '1', '0'], { message: 'must be true or false' }).optional(),
  /** Percent scores: a candidate at or above MERGE merges; between REVIEW and MERGE the LLM confirms. */
  SERVICE_RESOLUTION_MERGE_SCORE: intVar(1, 100),
  SERVICE_RESOLUTION_REVIEW_SCORE: intVar(1, 100),
  SERVICE_CORS_ORIGINS: z
    .string()
    .refine(
      (v) => originList(v).every((o) => /^https?:\/\/[^/\s]+$/.test(o)),
      'must be a comma-separated list of origins such as https://app.example.com',
    )
    .optional(),
  SERVICE_RERANK_PROVIDER: text(),
  SERVICE_RERANK_URL: urlVar(['http', 'https']),
  SERVICE_RERANK_API_KEY: text(),
  SERVICE_RERANK_API_KEY_ENV: text(),
  SERVICE_RERANK_MODEL: text(),
  SERVICE_CONSOLE_DIR: text(),
  SERVICE_CYPHER_ENABLED: z.enum(['true', 'false', '1', '0'], { message: 'must be true or false' }).optional(),
  SERVICE_CYPHER_TIMEOUT_MS: intVar(100, 600_000),
  SERVICE_CYPHER_MAX_ROWS: intVar(1, 100_000),
  SERVICE_GRAPH_STREAM_REPLAY: intVar(10, 1_000_000),
  SERVICE_GRAPH_STREAM_MAX_BUFFER_BYTES: intVar(1024, 1_073_741_824),
  SERVICE_GRAPH_STREAM_HEARTBEAT_MS: intVar(100, 3_600_000),
  ...authEnvSchema,
});

type EnvVars = z.output<typeof envSchema>;

export type LoadConfigOptions = CatalogLookupOptions;

export function loadConfig(env: Env = process.env, opts: LoadConfigOptions = {}): AppConfig {
  const cwd = opts.cwd ?? process.cwd();
  const { values, sourceOf } = applyAliases(env);
  const problems: string[] = [];

  const parsed = envSchema.safeParse(values);
  const vars: EnvVars = parsed.success ? parsed.data : envSchema.partial().parse(validOnly(values, parsed.error));
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`${sourceOf(String(issue.path[0]))}: ${issue.message}`);
  }

  const logLevel = resolveLogLevel(vars, problems);
  const storage = resolveStorage(vars, problems);

  const chunkTokens = vars.SERVICE_CHUNK_TOKENS ?? 1200;
  const chunkOverlapTokens = vars.SERVICE_CHUNK_OVERLAP_TOKENS ?? 100;
  if (chunkOverlapTokens >= chunkTokens) {
    problems.push(`SERVICE_CHUNK_OVERLAP_TOKENS: must be smaller than SERVICE_CHUNK_TOKENS (${chunkTokens}), got ${chunkOverlapTokens}`);
  }

  let catalog: ModelCatalog | null = null;
  try {
    catalog = loadCatalog(env, { cwd, homeDir: opts.homeDir });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  const models = catalog ? resolveModels(vars, catalog, sourceOf, problems) : null;
  const rerank = resolveRerank(vars, env, problems);
  const tracing = resolveTracing(vars, problems);
  const qdrant = resolveQdrant(vars, problems);
  const auth = resolveAuth(vars, problems);

  if (problems.length > 0 || !catalog || !models || !storage || !rerank || !tracing) throw new ConfigError(problems);

  // Read-only from here on: what changes at run time is published by the settings service, never written into it.
  return deepFreeze<ConfigValues>({
    version: readVersion(),
    host: vars.HOST ?? '0.0.0.0',
    port: vars.PORT ?? 8080,
    logLevel,
    // Documents in flight: ingestion waits on the LLM, not the CPU, so enough documents to keep every LLM slot
    // busy while others wait for the entities they share to be merged and summarised (six times the LLM
    // concurrency: the LLM slots were busy 81 % of an ingest with twice, 97 % with six), whatever the CPU count.
    workerThreads: vars.WORKER_THREADS ?? DOCUMENTS_PER_LLM_SLOT * (vars.SERVICE_LLM_CONCURRENCY ?? DEFAULT_LLM_CONCURRENCY),
    storage,
    neo4jPool: {
      maxSize: vars.NEO4J_MAX_POOL_SIZE ?? 50,
      acquisitionTimeoutMs: vars.NEO4J_ACQUISITION_TIMEOUT_MS ?? 5_000,
      requestSessions: vars.NEO4J_REQUEST_SESSIONS ?? null,
      requestSessionsPerTenant: vars.NEO4J_REQUEST_SESSIONS_PER_TENANT ?? null,
    },
    qdrant,
    redisUrl: vars.REDIS_URL ?? null,
    llm: models.llm,
    embedding: models.embedding,
    catalog,
    mockLatencyMs: vars.SERVICE_MOCK_LATENCY_MS ?? 0,
    mockTokenDelayMs: vars.SERVICE_MOCK_TOKEN_DELAY_MS ?? 0,
    rerank,
    tracing,
    ingest: {
      chunkTokens,
      chunkOverlapTokens,
      asyncThresholdBytes: vars.SERVICE_ASYNC_THRESHOLD_BYTES ?? DEFAULT_ASYNC_THRESHOLD_BYTES,
      maxGleaning: vars.SERVICE_MAX_GLEANING ?? 1,
      llmConcurrency: vars.SERVICE_LLM_CONCURRENCY ?? DEFAULT_LLM_CONCURRENCY,
      embeddingConcurrency: vars.SERVICE_EMBEDDING_CONCURRENCY ?? 4,
      // Batches save a database's round trips and rewrites; in memory a write costs neither, and batches only held more at once.
      mergeBatch: vars.SERVICE_MERGE_BATCH ?? (storage.mode === 'neo4j' ? 32 : 1),
      llmTimeoutMs: vars.SERVICE_LLM_TIMEOUT_MS ?? 120_000,
      llmRetries: vars.SERVICE_LLM_RETRIES ?? 2,
      summaryFragmentThreshold: vars.SERVICE_SUMMARY_FRAGMENTS ?? DEFAULT_SUMMARY.entity.fragments,
      summaryTokenThreshold: vars.SERVICE_SUMMARY_TOKENS ?? DEFAULT_SUMMARY.entity.tokens,
      summaryRelationshipFragmentThreshold: vars.SERVICE_SUMMARY_RELATIONSHIP_FRAGMENTS ?? DEFAULT_SUMMARY.relationship.fragments,
      summaryRelationshipTokenThreshold: vars.SERVICE_SUMMARY_RELATIONSHIP_TOKENS ?? DEFAULT_SUMMARY.relationship.tokens,
      scanRoots: parseScanRoots(vars.SERVICE_SCAN_ROOTS, cwd),
    },
    // docs/api.md §8.2: per API key or address, per minute; 0 disables a category.
    rateLimits: {
      windowMs: vars.SERVICE_RATE_LIMIT_WINDOW_MS ?? 60_000,
      upload: vars.SERVICE_RATE_LIMIT_UPLOAD ?? 10,
      query: vars.SERVICE_RATE_LIMIT_QUERY ?? 60,
      graph: vars.SERVICE_RATE_LIMIT_GRAPH ?? 100,
    },
    auth,
    errorTypeBase: (vars.SERVICE_ERROR_TYPE_BASE ?? 'https://kgrag.dev/problems').replace(/\/+$/, ''),
    noContextResponse: vars.SERVICE_NO_CONTEXT_RESPONSE ?? null,
    promptsDir: vars.SERVICE_PROMPTS_DIR ?? null,
    defaultWorkspaceId: vars.SERVICE_DEFAULT_WORKSPACE ?? 'default',
    instanceId: vars.SERVICE_INSTANCE_ID ?? `${os.hostname()}-${process.pid}`,
    taskLeaseMs: vars.SERVICE_TASK_LEASE_MS ?? 30_000,
    outageRetry: { attempts: vars.SERVICE_TASK_OUTAGE_RETRIES ?? 10, backoffMs: vars.SERVICE_TASK_OUTAGE_BACKOFF_MS ?? 1_000 },
    communityRefreshMs: vars.SERVICE_COMMUNITY_REFRESH_MS ?? 10_000,
    shutdownGraceMs: vars.SERVICE_SHUTDOWN_GRACE_MS ?? 10_000,
    admission: {
      queries: vars.SERVICE_MAX_QUERIES_IN_FLIGHT ?? 256,
      queriesPerWorkspace: vars.SERVICE_MAX_QUERIES_IN_FLIGHT_PER_WORKSPACE ?? 64,
      queriesRunningPerWorkspace:
        vars.SERVICE_QUERIES_RUNNING_PER_WORKSPACE ?? Math.max(4, QUERIES_RUNNING_PER_CORE * os.availableParallelism()),
      queryWaitMs: vars.SERVICE_QUERY_WAIT_MS ?? 5_000,
      queriesPerTenant: vars.SERVICE_MAX_QUERIES_IN_FLIGHT_PER_TENANT ?? 128,
      uploads: vars.SERVICE_MAX_UPLOADS_IN_FLIGHT ?? 64,
      uploadsPerWorkspace: vars.SERVICE_MAX_UPLOADS_IN_FLIGHT_PER_WORKSPACE ?? 16,
      uploadsPerTenant: vars.SERVICE_MAX_UPLOADS_IN_FLIGHT_PER_TENANT ?? 32,
      reads: {
        total: vars.SERVICE_MAX_READS_RUNNING ?? 128,
        perTenant: vars.SERVICE_MAX_READS_RUNNING_PER_TENANT ?? 32,
        perWorkspace: vars.SERVICE_MAX_READS_RUNNING_PER_WORKSPACE ?? 16,
      },
      readWaitMs: vars.SERVICE_READ_WAIT_MS ?? 5_000,
      graphStreams: {
        total: vars.SERVICE_MAX_GRAPH_STREAMS ?? 256,
        perTenant: vars.SERVICE_MAX_GRAPH_STREAMS_PER_TENANT ?? 64,
        perWorkspace: vars.SERVICE_MAX_GRAPH_STREAMS_PER_WORKSPACE ?? 32,
      },
      queuedDocuments: vars.SERVICE_MAX_QUEUED_DOCUMENTS ?? 10_000,
      queuedDocumentsPerWorkspace: vars.SERVICE_MAX_QUEUED_DOCUMENTS_PER_WORKSPACE ?? 1_000,
    },
    trustProxy: vars.SERVICE_TRUST_PROXY === 'true' || vars.SERVICE_TRUST_PROXY === '1',
    resolution: {
      // On unless turned off here or by a workspace.
      enabled: vars.SERVICE_ENTITY_RESOLUTION !== 'false' && vars.SERVICE_ENTITY_RESOLUTION !== '0',
      mergeScore: (vars.SERVICE_RESOLUTION_MERGE_SCORE ?? 90) / 100,
      reviewScore: Math.min(vars.SERVICE_RESOLUTION_REVIEW_SCORE ?? 70, vars.SERVICE_RESOLUTION_MERGE_SCORE ?? 90) / 100,
    },
    cypher: {
      enabled: vars.SERVICE_CYPHER_ENABLED === 'true' || vars.SERVICE_CYPHER_ENABLED === '1',
      timeoutMs: vars.SERVICE_CYPHER_TIMEOUT_MS ?? 10_000,
      maxRows: vars.SERVICE_CYPHER_MAX_ROWS ?? 1_000,
    },
    graphStream: {
      replayWindow: vars.SERVICE_GRAPH_STREAM_REPLAY ?? 1_000,
      maxBufferedBytes: vars.SERVICE_GRAPH_STREAM_MAX_BUFFER_BYTES ?? 4 * 1024 * 1024,
      heartbeatMs: vars.SERVICE_GRAPH_STREAM_HEARTBEAT_MS ?? 15_000,
    },
    corsOrigins: originList(vars.SERVICE_CORS_ORIGINS ?? ''),
    consoleDir: vars.SERVICE_CONSOLE_DIR ? path.resolve(cwd, vars.SERVICE_CONSOLE_DIR) : path.join(packageRoot(), 'web', 'dist'),
  });
}

/** `SERVICE_CORS_ORIGINS`: origins separated by commas, without a trailing slash. */
function originList(value: string): string[] {
  return value
    .split(',')
    .map((o) => o.trim().replace(/\/+$/, ''))
    .filter(Boolean);
}

/** Canonical names with aliases folded in; blank values count as unset. `sourceOf` names the variable used. */
function applyAliases(env: Env): { values: Record<string, string>; sourceOf: (canonical: string) => string } {
  const values: Record<string, string> = {};
  const used = new Map<string, string>();
  for (const key of Object.keys(envSchema.shape)) {
    for (const name of [key, ...(ALIASES[key] ?? [])]) {
      const v = env[name];
      if (v !== undefined && v.trim() !== '') {
        values[key] = v;
        used.set(key, name);
        break;
      }
    }
  }
  return { values, sourceOf: (canonical) => used.get(canonical) ?? canonical };
}

/** The values without the variables that failed, so later checks still run on the rest. */
function validOnly(values: Record<string, string>, error: z.ZodError): Record<string, string> {
  const bad = new Set(error.issues.map((i) => String(i.path[0])));
  return Object.fromEntries(Object.entries(values).filter(([k]) => !bad.has(k)));
}

function resolveLogLevel(vars: EnvVars, problems: string[]): string {
  for (const name of ['LOG_LEVEL', 'RUST_LOG'] as const) {
    const filter = vars[name];
    if (!filter) continue;
    try {
      const level = parseLogFilter(filter);
      if (level) return level;
      // RUST_LOG may only name other crates; LOG_LEVEL is ours and must say something.
      if (name === 'LOG_LEVEL') problems.push(`LOG_LEVEL: no log level in '${filter}' (use trace, debug, info, warn, error or off)`);
    } catch (err) {
      problems.push(`${name}: ${(err as Error).message}`);
    }
  }
  return 'info';
}

function parseScanRoots(raw: string | undefined, cwd: string): string[] {
  if (!raw) return [];
  return raw
    .split(path.delimiter)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => path.resolve(cwd, p));
}

let cachedPackage: { root: string; version: string } | undefined;

/** Our package.json sits two levels above this file both in src/config and in dist/config. */
function findPackage(): { root: string; version: string } {
  if (cachedPackage) return cachedPackage;
  for (let dir = __dirname, i = 0; i < 4; i++, dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'kgrag' && pkg.version) return (cachedPackage = { root: dir, version: pkg.version });
    } catch {
      // not here; look one level up
    }
  }
  return (cachedPackage = { root: path.resolve(__dirname, '../..'), version: '0.0.0' });
}

function readVersion(): string {
  return findPackage().version;
}

function packageRoot(): string {
  return findPackage().root;
}
