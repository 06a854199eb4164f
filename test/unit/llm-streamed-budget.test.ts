import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config';
import type { CatalogProvider } from '../../src/config/types';
import { llmBudget } from '../../src/llm/budget';
import { createLangChainLlm } from '../../src/llm/langchain';
import type { ChatMessage, LlmProvider } from '../../src/llm/ports';
import { ProviderTimeoutError, withResilience } from '../../src/llm/resilience';
import { Semaphore } from '../../src/llm/semaphore';

/**
 * Streamed calls under a budget, against a real HTTP server speaking Ollama's /api/chat (NDJSON) and OpenAI's
 * /v1/chat/completions (server-sent events), writing its tokens slowly, stalling, or looping.
 */

const MESSAGES: ChatMessage[] = [{ role: 'user', content: 'Name the entities.' }];

/** What the server writes for one request: fragments with a pause before each, then (unless it hangs) the end. */
interface Script {
  tokens: string[];
  pauseMs: number;
  /** After the tokens, write nothing more and keep the connection open. */
  hang?: boolean;
}

interface FakeServer {
  url: string;
  /** Most requests answered at once. */
  mostAtOnce: () => number;
  /** Tokens written so far, over all requests. */
  written: () => number;
  /** Requests received. */
  requests: () => number;
  close: () => Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function fakeServer(script: () => Script): Promise<FakeServer> {
  let written = 0;
  let requests = 0;
  let atOnce = 0;
  let mostAtOnce = 0;
  const server = http.createServer((req, res) => {
    requests++;
    mostAtOnce = Math.max(mostAtOnce, ++atOnce);
    let closed = false;
    res.on('close', () => {
      closed = true;
      atOnce--;
    });
    req.resume();
    req.on('end', () => {
      void (async () => {
        const { tokens, pauseMs, hang } = script();
        const openai = req.url?.startsWith('/v1/') ?? false;
        res.writeHead(200, { 'content-type': openai ? 'text/event-stream' : 'application/x-ndjson' });
        for (const token of tokens) {
          await sleep(pauseMs);
          if (closed) return;
          written++;
          res.write(openai ? sse({ delta: { content: token }, finish_reason: null }) : ndjson({ content: token }, false));
        }
        if (hang) return;
        if (openai) res.end(sse({ delta: {}, finish_reason: 'stop' }) + 'data: [DONE]\n\n');
        else res.end(ndjson({ content: '' }, true, tokens.length));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    mostAtOnce: () => mostAtOnce,
    written: () => written,
    requests: () => requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function ndjson(message: { content: string }, done: boolean, evalCount = 0): string {
  const line = { model: 'slow', created_at: new Date().toISOString(), message: { role: 'assistant', ...message }, done };
  return JSON.stringify(done ? { ...line, done_reason: 'stop', prompt_eval_count: 7, eval_count: evalCount } : line) + '\n';
}

function sse(choice: { delta: { content?: string }; finish_reason: string | null }): string {
  const chunk = { id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'slow', choices: [{ index: 0, ...choice }] };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function llmAgainst(
  type: 'ollama' | 'openai',
  script: () => Script,
  budget: { idle_timeout_ms: number; timeout_ms: number },
): Promise<{ llm: LlmProvider; server: FakeServer }> {
  const server = await fakeServer(script);
  servers.push(server);
  // Room for three calls at once in the process; the model's budget (one slot for ollama, and here for openai) decides.
  const provider: CatalogProvider = {
    name: `fake-${type}`,
    display_name: type,
    type,
    api_base: type === 'openai' ? `${server.url}/v1` : server.url,
    api_key_env: null,
    api_key: null,
    enabled: true,
    priority: 1,
    description: '',
    models: [],
    budget: { ...budget, concurrency: 1 },
  };
  const config = loadConfig({ SERVICE_LLM_PROVIDER: 'mock' });
  const llm = withResilience(createLangChainLlm(provider, 'slow'), {
    concurrency: 3,
    timeoutMs: budget.timeout_ms,
    retries: 2,
    backoffMs: 1,
    semaphore: new Semaphore(3),
    budget: llmBudget(config, provider, 'slow'),
    modelSemaphore: new Semaphore(llmBudget(config, provider, 'slow').concurrency),
  });
  return { llm, server };
}

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i} `);

describe.each(['ollama', 'openai'] as const)('a streamed %s call under a budget', (type) => {
  test('a slow model that keeps writing is not cut by the idle timeout, though it writes for longer than it', async () => {
    // 30 tokens 80 ms apart: about 2.4 s in all, against an idle timeout of 1 s.
    const { llm, server } = await llmAgainst(type, () => ({ tokens: words(30), pauseMs: 80 }), {
      idle_timeout_ms: 1000,
      timeout_ms: 60_000,
    });
    const done = await llm.complete(MESSAGES);
    expect(done.text).toBe(words(30).join(''));
    expect(done.finish_reason).toBe('stop');
    expect(server.requests()).toBe(1);
  });

  test('a model that stalls after writing ends with what it wrote, finish reason timeout, and no retry', async () => {
    const { llm, server } = await llmAgainst(type, () => ({ tokens: words(3), pauseMs: 10, hang: true }), {
      idle_timeout_ms: 500,
      timeout_ms: 60_000,
    });
    const done = await llm.complete(MESSAGES);
    expect(done.text).toBe(words(3).join(''));
    expect(done.finish_reason).toBe('timeout');
    expect(server.requests()).toBe(1);
  });

  test('a model that writes nothing fails with an idle timeout, not retried', async () => {
    const { llm, server } = await llmAgainst(type, () => ({ tokens: [], pauseMs: 0, hang: true }), {
      idle_timeout_ms: 300,
      timeout_ms: 60_000,
    });
    const failure = await llm.complete(MESSAGES).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ProviderTimeoutError);
    expect(failure).toMatchObject({ kind: 'idle' });
    expect(server.requests()).toBe(1);
  });

  test('the total cap ends a model that writes on and on, keeping what it wrote', async () => {
    const { llm, server } = await llmAgainst(type, () => ({ tokens: words(10_000), pauseMs: 20 }), {
      idle_timeout_ms: 5000,
      timeout_ms: 600,
    });
    const done = await llm.complete(MESSAGES);
    expect(done.finish_reason).toBe('timeout');
    expect(done.text.length).toBeGreaterThan(0);
    expect(words(10_000).join('').startsWith(done.text)).toBe(true);
    expect(server.written()).toBeLessThan(10_000);
  });

  test('calls to a model with one slot reach the server one at a time', async () => {
    const { llm, server } = await llmAgainst(type, () => ({ tokens: words(5), pauseMs: 20 }), {
      idle_timeout_ms: 5000,
      timeout_ms: 60_000,
    });
    const done = await Promise.all([1, 2, 3].map(() => llm.complete(MESSAGES)));
    expect(done.map((d) => d.text)).toEqual([1, 2, 3].map(() => words(5).join('')));
    expect(server.requests()).toBe(3);
    expect(server.mostAtOnce()).toBe(1);
  });

  test('a looping model is stopped early with finish reason repetition', async () => {
    const loop = Array.from({ length: 4000 }, () => ['entity', '<|>', 'Alice', '<|>', 'PERSON', '##\n']).flat();
    const { llm, server } = await llmAgainst(type, () => ({ tokens: ['Records:\n', ...loop], pauseMs: 0 }), {
      idle_timeout_ms: 5000,
      timeout_ms: 60_000,
    });
    const done = await llm.complete(MESSAGES);
    expect(done.finish_reason).toBe('repetition');
    expect(done.text.startsWith('Records:\nentity<|>Alice<|>PERSON##\n')).toBe(true);
    // Stopped within the loop's first turns, not at the end of the 24,000 fragments.
    expect(done.text.length).toBeLessThan(2000);
    await sleep(200);
    expect(server.written()).toBeLessThan(loop.length);
  });
});

describe('budgets from the catalog', () => {
  const provider = (type: 'ollama' | 'openai', extra: Partial<CatalogProvider> = {}): CatalogProvider => ({
    name: type,
    display_name: type,
    type,
    api_base: 'http://127.0.0.1:1',
    api_key_env: null,
    api_key: null,
    enabled: true,
    priority: 1,
    description: '',
    models: [],
    ...extra,
  });
  const config = loadConfig({ SERVICE_LLM_PROVIDER: 'mock' });

  test('a local runtime starts at one slot and a small output cap; a hosted API at the service concurrency', () => {
    expect(llmBudget(config, provider('ollama'), 'any')).toMatchObject({ concurrency: 1, maxOutputTokens: 1024 });
    expect(llmBudget(config, provider('openai'), 'any')).toMatchObject({ concurrency: config.ingest.llmConcurrency });
    expect(llmBudget(config, provider('openai'), 'any').maxOutputTokens).toBeUndefined();
  });

  test("a model's budget overrides its provider's, which overrides the type's defaults", () => {
    const p = provider('ollama', {
      budget: { concurrency: 2, idle_timeout_ms: 9000 },
      models: [
        {
          name: 'small',
          display_name: 'small',
          model_type: 'llm',
          description: '',
          deprecated: false,
          tags: [],
          capabilities: config.catalog.providers[0].models[0].capabilities,
          cost: config.catalog.providers[0].models[0].cost,
          budget: { max_output_tokens: 256, concurrency: 3 },
        },
      ],
    });
    expect(llmBudget(config, p, 'small')).toMatchObject({ maxOutputTokens: 256, concurrency: 3, idleTimeoutMs: 9000 });
    expect(llmBudget(config, p, 'other')).toMatchObject({ maxOutputTokens: 1024, concurrency: 2, idleTimeoutMs: 9000 });
  });
});
