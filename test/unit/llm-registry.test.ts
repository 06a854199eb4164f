import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/load';
import type { AppConfig } from '../../src/config/types';
import { findModel, listModels, listProviders, providerModels, resolveModelRef } from '../../src/llm/catalog-view';
import { UnknownProviderError } from '../../src/llm/ports';
import { ProviderDisabledError, createProviderRegistry } from '../../src/llm/registry';
import type { UsageEvent } from '../../src/llm/usage';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-registry-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const configWith = (env: Record<string, string> = {}): AppConfig =>
  loadConfig({ SERVICE_LLM_PROVIDER: 'mock', ...env }, { cwd: dir, homeDir: dir });

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('createProviderRegistry', () => {
  test('defaults to the configured mock LLM and embeddings, one cached instance per provider and model', () => {
    const registry = createProviderRegistry(configWith({ SERVICE_EMBEDDING_DIMENSION: '48' }));
    const llm = registry.llm();
    expect([llm.provider, llm.model]).toEqual(['mock', 'mock-llm']);
    expect(registry.llm('mock', 'mock-llm')).toBe(llm);
    const embedding = registry.embedding();
    expect([embedding.provider, embedding.model, embedding.dimension]).toEqual(['mock', 'mock-embedding', 48]);
    expect(registry.embedding('mock')).toBe(embedding);
    expect(registry.defaultLlmProviderName()).toBe('mock');
  });

  test('an embedding model carries the similarity threshold of its catalog entry', () => {
    const registry = createProviderRegistry(configWith());
    expect(registry.embedding('mock', 'mock-embedding').similarityThreshold).toBe(0.15);
  });

  test('the default LLM answers through the resilience wrapper', async () => {
    const registry = createProviderRegistry(configWith());
    const vectors = await registry.embedding().embed(['a graph', 'a tree']);
    expect(vectors).toHaveLength(2);
    expect(vectors[0]).toHaveLength(256);
    const reply = await registry.llm().complete([{ role: 'user', content: 'Marie Curie worked in Paris.' }], { task: 'extract' });
    expect(reply.text).toContain('entity<|>Marie Curie<|>PERSON');
  });

  test('unknown providers and models throw UnknownProviderError of the right kind', () => {
    const registry = createProviderRegistry(configWith());
    expect(thrown(() => registry.llm('nope'))).toMatchObject({ kind: 'provider', unknownName: 'nope' });
    expect(thrown(() => registry.llm('mock', 'gpt-4o'))).toMatchObject({ kind: 'model', unknownName: 'gpt-4o' });
    expect(thrown(() => registry.llm('mock', 'mock-embedding'))).toMatchObject({ kind: 'model', unknownName: 'mock-embedding' });
    expect(thrown(() => registry.embedding('mock', 'mock-llm'))).toBeInstanceOf(UnknownProviderError);
  });

  test('an openai provider without its key is disabled: it throws ProviderDisabledError and hasProvider is false', () => {
    const registry = createProviderRegistry(configWith());
    const err = thrown(() => registry.llm('openai'));
    expect(err).toBeInstanceOf(ProviderDisabledError);
    expect(err).toBeInstanceOf(UnknownProviderError);
    expect((err as Error).message).toBe("provider 'openai' is disabled: OPENAI_API_KEY is not set");
    expect(registry.hasProvider('openai')).toBe(false);
    expect(registry.hasProvider('mock')).toBe(true);
    expect(registry.hasProvider('ghost')).toBe(false);
  });

  test('openai and ollama providers accept model names the catalog does not list', () => {
    const registry = createProviderRegistry(configWith({ OPENAI_API_KEY: 'sk-test' }));
    expect(registry.llm('openai', 'gpt-5-mini').model).toBe('gpt-5-mini');
    expect(registry.llm('ollama', 'mistral:7b').model).toBe('mistral:7b');
    expect(registry.llm('openai').model).toBe('gpt-4o-mini');
    expect(registry.embedding('ollama').dimension).toBe(768);
  });

  test('the usage recorder hears about every successful call', async () => {
    const events: UsageEvent[] = [];
    const registry = createProviderRegistry(configWith(), undefined, { recorder: { record: (e) => events.push(e) } });
    await registry.llm().complete([{ role: 'user', content: 'hello' }], { task: 'chat' });
    await registry.embedding().embed(['hello']);
    expect(events.map((e) => [e.provider, e.model, e.kind, e.task])).toEqual([
      ['mock', 'mock-llm', 'llm', 'chat'],
      ['mock', 'mock-embedding', 'embedding', undefined],
    ]);
  });

  test('check reports the mock provider healthy and an unreachable ollama unhealthy with an error', async () => {
    const registry = createProviderRegistry(configWith({ OLLAMA_HOST: 'http://127.0.0.1:9' }), undefined, { checkTimeoutMs: 1000 });
    const results = await registry.check();
    expect(results.map((r) => r.name)).toEqual(['mock', 'ollama']);
    expect(results[0]).toEqual({ name: 'mock', status: 'healthy', latency_ms: 0 });
    expect(results[1]).toMatchObject({ name: 'ollama', status: 'unhealthy', error: expect.stringContaining('127.0.0.1:9/api/tags') });
  });

  test('creating the registry logs which providers are in use, saying when it is the offline mock', () => {
    const lines: Array<[object, string | undefined]> = [];
    createProviderRegistry(configWith(), { info: (o, m) => lines.push([o, m]), warn: () => undefined });
    expect(lines).toHaveLength(1);
    expect(lines[0][0]).toMatchObject({ llm_provider: 'mock', embedding_dimension: 256 });
    expect(lines[0][1]).toMatch(/offline mock/);
  });
});

describe('catalog views', () => {
  test('/models lists models of enabled providers with id, name, provider, context_length and capabilities', () => {
    const { catalog } = configWith();
    const models = listModels(catalog);
    expect(models.some((m) => m.provider === 'openai')).toBe(false);
    expect(models).toContainEqual(
      expect.objectContaining({ id: 'mock/mock-llm', name: 'mock-llm', provider: 'mock', context_length: 128000, capabilities: ['chat'] }),
    );
    expect(models).toContainEqual(
      expect.objectContaining({ id: 'ollama/nomic-embed-text', capabilities: ['embeddings'], embedding_dimension: 768 }),
    );
    expect(listModels(catalog, { includeDisabled: true, provider: 'openai', type: 'embedding' }).map((m) => m.name)).toEqual([
      'text-embedding-3-small',
      'text-embedding-3-large',
    ]);
  });

  test('/providers lists every provider by priority with its state, and never the key', () => {
    const { catalog } = configWith({ OPENAI_API_KEY: 'sk-secret' });
    const providers = listProviders(catalog);
    expect(providers.map((p) => p.name)).toEqual(['ollama', 'openai', 'mock']);
    expect(providers.find((p) => p.name === 'openai')).toMatchObject({ enabled: true, api_key_set: true, api_key_env: 'OPENAI_API_KEY' });
    // With its key set, the hosted provider is the built-in default of both kinds.
    expect(providers.find((p) => p.name === 'openai')).toMatchObject({ default_for: ['llm', 'embedding'] });
    expect(providers.find((p) => p.name === 'mock')).toMatchObject({ default_for: [], llm_models: ['mock-llm'] });
    expect(JSON.stringify(providers)).not.toContain('sk-secret');
  });

  test('provider models, model lookup and model references', () => {
    const { catalog } = configWith();
    expect(providerModels(catalog, 'ghost')).toBeNull();
    expect(providerModels(catalog, 'mock')?.map((m) => m.id)).toEqual(['mock/mock-llm', 'mock/mock-embedding']);
    expect(findModel(catalog, 'openai', 'gpt-4o')?.cost.output_per_1k).toBe(0.01);
    expect(resolveModelRef(catalog, 'mock/mock-llm')).toEqual({ provider: 'mock', model: 'mock-llm' });
    expect(resolveModelRef(catalog, 'llama3.2')).toEqual({ provider: 'ollama', model: 'llama3.2' });
    expect(resolveModelRef(catalog, 'gpt-4o')).toBeUndefined();
  });
});
