import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/load';
import { UnknownProviderError } from '../../src/llm/ports';
import { ProviderDisabledError, resolveModel } from '../../src/llm/resolve';
import type { WorkspaceModels } from '../../src/llm/workspace-models';

/** The order that picks the model of every provider call: request, workspace, service default (docs/api.md §1.3). */

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-resolve-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const config = (env: Record<string, string> = {}) => loadConfig({ SERVICE_LLM_PROVIDER: 'mock', ...env }, { cwd: dir, homeDir: dir });

const workspace: WorkspaceModels = {
  llm_provider: 'ollama',
  llm_model: 'qwen2.5:7b',
  embedding_provider: 'ollama',
  embedding_model: 'mxbai-embed-large',
  embedding_dimension: 1024,
};

const pick = (r: ReturnType<typeof resolveModel>) => [r.provider.name, r.model, r.dimension];

describe('resolveModel', () => {
  it('takes the service default when nothing else names a model', () => {
    expect(pick(resolveModel(config(), 'llm', {}))).toEqual(['mock', 'mock-llm', 0]);
    expect(pick(resolveModel(config({ SERVICE_EMBEDDING_DIMENSION: '48' }), 'embedding', {}))).toEqual(['mock', 'mock-embedding', 48]);
  });

  it("takes the workspace's models over the service default, with the workspace's dimension", () => {
    expect(pick(resolveModel(config(), 'llm', {}, workspace))).toEqual(['ollama', 'qwen2.5:7b', 0]);
    expect(pick(resolveModel(config(), 'embedding', {}, workspace))).toEqual(['ollama', 'mxbai-embed-large', 1024]);
  });

  it("takes the request's choice over both; a model alone belongs to the provider the next levels choose", () => {
    expect(pick(resolveModel(config(), 'llm', { provider: 'mock', model: 'mock-llm' }, workspace))).toEqual(['mock', 'mock-llm', 0]);
    expect(pick(resolveModel(config(), 'llm', { model: 'llama3.2' }, workspace))).toEqual(['ollama', 'llama3.2', 0]);
    // A provider alone: the workspace's model when it is the workspace's provider, else the provider's first.
    expect(pick(resolveModel(config(), 'llm', { provider: 'ollama' }, workspace))).toEqual(['ollama', 'qwen2.5:7b', 0]);
    expect(pick(resolveModel(config(), 'llm', { provider: 'ollama' }))).toEqual(['ollama', 'llama3.2', 0]);
    expect(pick(resolveModel(config(), 'embedding', { provider: 'ollama', model: 'nomic-embed-text' }))).toEqual([
      'ollama',
      'nomic-embed-text',
      768,
    ]);
  });

  it('refuses unknown providers, disabled ones (naming the key variable) and models the mock does not serve', () => {
    expect(() => resolveModel(config(), 'llm', { provider: 'ghost' })).toThrow(UnknownProviderError);
    expect(() => resolveModel(config(), 'llm', { provider: 'openai' })).toThrow(
      new ProviderDisabledError(config().catalog.providers.find((p) => p.name === 'openai')!),
    );
    expect(() => resolveModel(config(), 'llm', { provider: 'openai' })).toThrow(/OPENAI_API_KEY is not set/);
    expect(() => resolveModel(config(), 'llm', { model: 'gpt-4o' })).toThrow(/unknown model 'gpt-4o'/);
    expect(() => resolveModel(config(), 'llm', { provider: 'mock', model: 'mock-embedding' })).toThrow(/unknown model/);
  });
});
