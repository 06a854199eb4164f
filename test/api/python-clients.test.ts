import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestApp } from '../helpers/app';
import { startSeededApp } from '../helpers/seeded-app';
import { pythonVenv } from '../helpers/venv';

/**
 * The official Python clients against the real server, with an API key as a user has one: `ollama` 0.6.3, `openai`,
 * and LangChain's Ollama and OpenAI integrations (OllamaEmbeddings with its defaults, which send nulls in
 * `options`). They run in a virtual environment the suite makes under build/ (test/fixtures/clients/python_clients.py).
 */

jest.setTimeout(600_000);

const run = promisify(execFile);
const SCRIPT = path.resolve(__dirname, '../fixtures/clients/python_clients.py');
const PACKAGES = ['ollama==0.6.3', 'openai==3.63.0', 'langchain-ollama==1.1.0', 'langchain-openai==1.8.1'];

type Outcome = { ok: true; value: unknown } | { ok: false; error: string; trace: string };

let app: TestApp;
let results: Record<string, Outcome>;

beforeAll(async () => {
  const venv = pythonVenv('python-clients-venv', PACKAGES, ['python', '-c', 'import ollama, openai, langchain_ollama, langchain_openai']);
  // No local runtime answers here (a closed port), whatever runs on this machine.
  app = await startSeededApp({ OLLAMA_HOST: 'http://127.0.0.1:9' });
  const key = await app.createApiKey({ role: 'editor' });
  const python = path.join(await venv, 'python');
  const { stdout } = await run(python, [SCRIPT, app.url, key, app.workspace], { timeout: 300_000, maxBuffer: 16 * 1024 * 1024 });
  results = JSON.parse(stdout) as Record<string, Outcome>;
});

afterAll(async () => {
  await app?.close();
});

function value<T>(call: string): T {
  const outcome = results[call];
  if (!outcome) throw new Error(`${call} did not run`);
  if (!outcome.ok) throw new Error(`${call} raised ${outcome.error}\n${outcome.trace}`);
  return outcome.value as T;
}

describe('ollama (Python)', () => {
  it('reads the version without a key, as Open WebUI does', () => {
    expect(value<{ version: string }>('ollama.version').version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('lists the RAG models with tags and shows one', () => {
    expect(value<string[]>('ollama.list')).toEqual(expect.arrayContaining(['kgrag:hybrid', 'kgrag:naive']));
    expect(value<string[]>('ollama.ps')).toEqual(expect.any(Array));
    expect(value<string[]>('ollama.show')).toContain('completion');
  });

  it('chats, streams and generates with answers from the graph', () => {
    for (const call of ['ollama.chat', 'ollama.chat_stream', 'ollama.generate']) expect(value<string>(call)).toMatch(/Acme/i);
  });

  it('embeds a batch with the workspace embedding model', () => {
    expect(value<number[]>('ollama.embed')).toEqual([256, 256]);
  });
});

describe('openai (Python)', () => {
  it('lists models, chats whole and streamed, embeds', () => {
    expect(value<string[]>('openai.models')).toEqual(expect.arrayContaining(['kgrag:hybrid']));
    expect(value<string>('openai.chat')).toMatch(/Acme/i);
    expect(value<string>('openai.chat_stream')).toMatch(/Acme/i);
    expect(value<number[]>('openai.embeddings')).toEqual([256]);
  });
});

describe('LangChain (Python)', () => {
  it('answers through ChatOllama, OllamaLLM and ChatOpenAI', () => {
    for (const call of ['langchain.ChatOllama', 'langchain.OllamaLLM', 'langchain.ChatOpenAI'])
      expect(value<string>(call)).toMatch(/Acme/i);
  });

  it('embeds through OllamaEmbeddings with its defaults and through OpenAIEmbeddings', () => {
    expect(value<number>('langchain.OllamaEmbeddings')).toBe(256);
    expect(value<number>('langchain.OpenAIEmbeddings')).toBe(256);
  });
});
