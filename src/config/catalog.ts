import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { BUILT_IN_CATALOG } from './builtin-catalog';
import { type CatalogFile, catalogFileSchema, formatKeyPath } from './catalog-schema';
import { ConfigError } from './errors';
import type { CatalogModel, CatalogProvider, ModelCatalog, ProviderType } from './types';

/** models.toml: lookup, parsing, validation and resolution of api keys (docs/api.md §1.3). */

export type Env = Record<string, string | undefined>;

export interface CatalogLookupOptions {
  cwd?: string;
  homeDir?: string;
}

export const BUILT_IN_SOURCE = 'built-in';
export const OPENAI_DEFAULT_API_BASE = 'https://api.openai.com/v1';
export const OLLAMA_DEFAULT_API_BASE = 'http://localhost:11434';
const CATALOG_FILE = 'models.toml';

/**
 * The catalog file to read: SERVICE_MODELS_CONFIG, ./models.toml, ~/.kgrag/models.toml; null means built-in.
 * Throws ConfigError when SERVICE_MODELS_CONFIG names a missing file.
 */
export function findCatalogFile(env: Env, opts: CatalogLookupOptions = {}): string | null {
  const cwd = opts.cwd ?? process.cwd();
  const explicit = env.SERVICE_MODELS_CONFIG?.trim();
  if (explicit) {
    const file = path.resolve(cwd, explicit);
    if (!isFile(file)) throw new ConfigError([`SERVICE_MODELS_CONFIG: file not found: ${file}`]);
    return file;
  }
  const candidates = [path.join(cwd, CATALOG_FILE), path.join(opts.homeDir ?? os.homedir(), '.kgrag', CATALOG_FILE)];
  return candidates.find(isFile) ?? null;
}

/** Finds and loads the catalog (see findCatalogFile); throws ConfigError listing every problem. */
export function loadCatalog(env: Env, opts: CatalogLookupOptions = {}): ModelCatalog {
  const file = findCatalogFile(env, opts);
  if (file === null) return builtInCatalog(env);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([`${file}: cannot read: ${(err as Error).message}`]);
  }
  return parseCatalogToml(text, file, env);
}

export function builtInCatalog(env: Env): ModelCatalog {
  return buildCatalog(BUILT_IN_CATALOG, BUILT_IN_SOURCE, env);
}

export function parseCatalogToml(text: string, source: string, env: Env): ModelCatalog {
  let data: unknown;
  try {
    data = parseToml(text);
  } catch (err) {
    if (err instanceof TomlError) {
      const first = err.message.split('\n')[0];
      throw new ConfigError([`${source}: invalid TOML at line ${err.line}, column ${err.column}: ${first}`]);
    }
    throw err;
  }
  return buildCatalog(data, source, env);
}

/** Validates parsed catalog data (TOML or an object), fills defaults and resolves api keys from `env`. */
export function buildCatalog(data: unknown, source: string, env: Env): ModelCatalog {
  const parsed = catalogFileSchema.safeParse(data);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${source}: ${describePath(data, i.path)}: ${i.message}`));
  }
  const problems: string[] = [];
  const providers = parsed.data.providers.map((p) => resolveProvider(p, env));
  const names = new Set<string>();
  for (const p of providers) {
    if (names.has(p.name)) problems.push(`${source}: providers: duplicate provider name '${p.name}'`);
    names.add(p.name);
  }
  const defaults = resolveDefaults(parsed.data.defaults, providers, problems, source);
  if (problems.length > 0) throw new ConfigError(problems);
  const given = parsed.data.defaults;
  return { source, defaults, providers, defaultsGiven: { llm: !!given.llm_provider, embedding: !!given.embedding_provider } };
}

function resolveProvider(p: CatalogFile['providers'][number], env: Env): CatalogProvider {
  const apiBase = (p.api_base ?? defaultApiBase(p.type, env))?.replace(/\/+$/, '') ?? null;
  // Only the real OpenAI endpoint implies a key; an OpenAI-compatible local server may need none.
  const apiKeyEnv = p.api_key_env ?? (p.type === 'openai' && p.api_base === undefined ? 'OPENAI_API_KEY' : null);
  const apiKey = apiKeyEnv ? env[apiKeyEnv]?.trim() || null : null;
  return {
    name: p.name,
    display_name: p.display_name ?? p.name,
    type: p.type,
    api_base: apiBase,
    api_key_env: apiKeyEnv,
    api_key: apiKey,
    // A provider whose key variable is unset stays listed but cannot be used.
    enabled: p.enabled && !(apiKeyEnv !== null && apiKey === null),
    priority: p.priority,
    description: p.description,
    ...(p.budget ? { budget: p.budget } : {}),
    models: p.models.map(resolveModel),
  };
}

function resolveModel(m: CatalogFile['providers'][number]['models'][number]): CatalogModel {
  const isLlm = m.model_type === 'llm';
  return {
    name: m.name,
    display_name: m.display_name ?? m.name,
    model_type: m.model_type,
    description: m.description,
    deprecated: m.deprecated,
    tags: m.tags,
    capabilities: {
      ...m.capabilities,
      context_length: m.capabilities.context_length ?? 8192,
      max_output_tokens: m.capabilities.max_output_tokens ?? (isLlm ? 4096 : 0),
    },
    cost: m.cost,
    ...(m.budget ? { budget: m.budget } : {}),
  };
}

function defaultApiBase(type: ProviderType, env: Env): string | null {
  if (type === 'openai') return OPENAI_DEFAULT_API_BASE;
  if (type === 'ollama') {
    const host = env.OLLAMA_HOST?.trim();
    if (!host) return OLLAMA_DEFAULT_API_BASE;
    return /^https?:\/\//.test(host) ? host : `http://${host}`;
  }
  return null;
}

function resolveDefaults(
  given: CatalogFile['defaults'],
  providers: CatalogProvider[],
  problems: string[],
  source: string,
): ModelCatalog['defaults'] {
  const pick = (kind: 'llm' | 'embedding', follow?: string): [string, string] => {
    const providerKey = `${kind}_provider` as const;
    const modelKey = `${kind}_model` as const;
    let provider = given[providerKey]
      ? providers.find((p) => p.name === given[providerKey])
      : (sameProvider(providers, follow, kind) ?? preferredProvider(providers, kind));
    if (given[providerKey] && !provider) {
      problems.push(`${source}: defaults.${providerKey}: unknown provider '${given[providerKey]}'`);
      return [given[providerKey]!, given[modelKey] ?? ''];
    }
    provider ??= providers[0];
    const model = given[modelKey] ?? firstModel(provider, kind)?.name;
    if (!model) {
      problems.push(`${source}: defaults.${modelKey}: required, provider '${provider.name}' lists no ${kind} model`);
      return [provider.name, ''];
    }
    const listed = provider.models.find((m) => m.name === model);
    if (listed && listed.model_type !== kind) {
      problems.push(`${source}: defaults.${modelKey}: '${model}' is an ${listed.model_type} model, not ${kind}`);
    } else if (!listed && provider.type === 'mock') {
      problems.push(`${source}: defaults.${modelKey}: provider '${provider.name}' has no ${kind} model '${model}'`);
    }
    return [provider.name, model];
  };
  const [llmProvider, llmModel] = pick('llm');
  const [embeddingProvider, embeddingModel] = pick('embedding', llmProvider);
  return { llm_provider: llmProvider, llm_model: llmModel, embedding_provider: embeddingProvider, embedding_model: embeddingModel };
}

/** The named provider when it serves models of the kind (embeddings follow the LLM provider when they can). */
export function sameProvider(
  providers: CatalogProvider[],
  name: string | undefined,
  kind: 'llm' | 'embedding',
): CatalogProvider | undefined {
  const p = name === undefined ? undefined : providers.find((x) => x.name === name);
  return p && firstModel(p, kind) ? p : undefined;
}

/**
 * The built-in default (docs/api.md §1.2): a hosted OpenAI-type provider whose API key is set, else the local
 * runtime (Ollama), else the offline mock when the catalog lists no other, else the enabled provider with the
 * lowest priority. Only an explicit choice (env or [defaults]) selects `mock` when a real provider is listed.
 */
function preferredProvider(providers: CatalogProvider[], kind: 'llm' | 'embedding'): CatalogProvider | undefined {
  const withModel = providers.filter((p) => firstModel(p, kind));
  const byPriority = (list: CatalogProvider[]) => [...list].sort((a, b) => a.priority - b.priority)[0];
  const hosted = byPriority(withModel.filter((p) => p.type === 'openai' && p.enabled && p.api_key !== null));
  const local = byPriority(withModel.filter((p) => p.type === 'ollama' && p.enabled));
  const mock = byPriority(withModel.filter((p) => p.type === 'mock' && p.enabled));
  if (hosted ?? local ?? mock) return hosted ?? local ?? mock;
  return [...withModel].sort((a, b) => Number(b.enabled) - Number(a.enabled) || a.priority - b.priority)[0];
}

function firstModel(p: CatalogProvider, kind: 'llm' | 'embedding'): CatalogModel | undefined {
  const ofKind = p.models.filter((m) => m.model_type === kind);
  return ofKind.find((m) => !m.deprecated) ?? ofKind[0];
}

/** The key path of an issue, naming the provider so users find the entry: `providers[1] (openai).models[0].name`. */
function describePath(data: unknown, issuePath: ReadonlyArray<PropertyKey>): string {
  const text = formatKeyPath(issuePath);
  if (issuePath[0] !== 'providers' || typeof issuePath[1] !== 'number') return text;
  const entry = (data as { providers?: Array<{ name?: unknown }> })?.providers?.[issuePath[1]];
  const name = typeof entry?.name === 'string' ? entry.name : undefined;
  if (!name) return text;
  const head = `providers[${issuePath[1]}]`;
  return `${head} (${name})${text.slice(head.length)}`;
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
