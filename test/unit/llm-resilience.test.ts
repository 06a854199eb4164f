import { sleep } from '../../src/domain/abort';
import type { ChatMessage, Completion, CompletionOptions, EmbeddingProvider, LlmProvider, TokenUsage } from '../../src/llm/ports';
import { ProviderTimeoutError, isTransient, withResilience } from '../../src/llm/resilience';
import { AGING_LIMIT, Semaphore } from '../../src/llm/semaphore';
import { runWithUsageContext, type UsageEvent } from '../../src/llm/usage';

const USAGE: TokenUsage = { input_tokens: 3, output_tokens: 2 };
const MESSAGES: ChatMessage[] = [{ role: 'user', content: 'hi' }];

class HttpLikeError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

/** Counts calls and in-flight calls; each call runs the next scripted behaviour (default: answer after a tick). */
class FakeLlm implements LlmProvider {
  readonly provider = 'fake';
  readonly model = 'fake-1';
  calls = 0;
  inFlight = 0;
  maxInFlight = 0;
  script: Array<(signal?: AbortSignal) => Promise<void>> = [];

  async complete(_messages: ChatMessage[], options: CompletionOptions = {}): Promise<Completion> {
    this.calls++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const step = this.script.shift() ?? (() => sleep(2, options.signal));
      await step(options.signal);
      return { text: 'ok', usage: USAGE };
    } finally {
      this.inFlight--;
    }
  }

  async *stream(_messages: ChatMessage[], options: CompletionOptions = {}): AsyncGenerator<string, TokenUsage, void> {
    this.calls++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const step = this.script.shift();
      if (step) await step(options.signal);
      for (const word of ['a ', 'b ', 'c']) {
        await sleep(1, options.signal);
        yield word;
      }
      return USAGE;
    } finally {
      this.inFlight--;
    }
  }
}

const fail = (err: Error) => async () => {
  throw err;
};
const hang = (signal?: AbortSignal) => sleep(60_000, signal);

const options = (extra: Partial<Parameters<typeof withResilience>[1]> = {}) => ({
  concurrency: 2,
  timeoutMs: 10_000,
  retries: 2,
  backoffMs: 1,
  semaphore: new Semaphore(extra.concurrency ?? 2),
  ...extra,
});

describe('withResilience concurrency', () => {
  test('the number of calls in flight never exceeds the limit, and all calls complete', async () => {
    const fake = new FakeLlm();
    const llm = withResilience(fake, options({ concurrency: 3, semaphore: new Semaphore(3) }));
    const results = await Promise.all(Array.from({ length: 20 }, () => llm.complete(MESSAGES)));
    expect(results).toHaveLength(20);
    expect(fake.maxInFlight).toBe(3);
    expect(fake.calls).toBe(20);
  });

  test('a stream holds its slot until it finishes', async () => {
    const fake = new FakeLlm();
    const llm = withResilience(fake, options({ concurrency: 1, semaphore: new Semaphore(1) }));
    const read = async () => {
      const parts: string[] = [];
      for await (const p of llm.stream(MESSAGES)) parts.push(p);
      return parts.join('');
    };
    expect(await Promise.all([read(), read(), llm.complete(MESSAGES).then((c) => c.text)])).toEqual(['a b c', 'a b c', 'ok']);
    expect(fake.maxInFlight).toBe(1);
  });

  test('a consumer that stops reading a stream early releases its slot', async () => {
    const semaphore = new Semaphore(1);
    const llm = withResilience(new FakeLlm(), options({ concurrency: 1, semaphore }));
    for await (const _ of llm.stream(MESSAGES)) break;
    expect(semaphore.inFlight).toBe(0);
    await expect(llm.complete(MESSAGES)).resolves.toMatchObject({ text: 'ok' });
  });

  test('the semaphore grants waiters in FIFO order', async () => {
    const semaphore = new Semaphore(1);
    const release = await semaphore.acquire();
    const order: number[] = [];
    const waiters = [1, 2, 3].map((n) => semaphore.acquire().then((r) => (order.push(n), r())));
    release();
    await Promise.all(waiters);
    expect(order).toEqual([1, 2, 3]);
  });

  test('the semaphore grants higher ranks first, in arrival order within a rank', async () => {
    const semaphore = new Semaphore(1);
    const release = await semaphore.acquire();
    const order: string[] = [];
    const ask = (name: string, rank: number) => semaphore.acquire(undefined, rank).then((r) => (order.push(name), r()));
    const waiters = [ask('extract 1', 0), ask('glean 1', 1), ask('extract 2', 0), ask('summary', 2), ask('glean 2', 1)];
    release();
    await Promise.all(waiters);
    expect(order).toEqual(['summary', 'glean 1', 'glean 2', 'extract 1', 'extract 2']);
  });

  test('a waiter passed over by AGING_LIMIT higher ranks is passed over no more', async () => {
    const semaphore = new Semaphore(1);
    const release = await semaphore.acquire();
    const order: string[] = [];
    const ask = (name: string, rank: number) => semaphore.acquire(undefined, rank).then((r) => (order.push(name), r()));
    const waiters = [ask('low', 0)];
    for (let i = 0; i < AGING_LIMIT + 2; i++) waiters.push(ask(`high ${i}`, 1));
    release();
    await Promise.all(waiters);
    expect(order.indexOf('low')).toBe(AGING_LIMIT);
  });

  test('calls wait for a slot by their task: a question before a summary, a summary before the next extraction', async () => {
    const semaphore = new Semaphore(1);
    const fake = new FakeLlm();
    const llm = withResilience(fake, options({ concurrency: 1, semaphore }));
    const order: string[] = [];
    const release = await semaphore.acquire();
    const call = (task: 'extract' | 'glean' | 'summarize' | 'keywords') => llm.complete(MESSAGES, { task }).then(() => order.push(task));
    const calls = [call('extract'), call('glean'), call('summarize'), call('keywords')];
    release();
    await Promise.all(calls);
    expect(order).toEqual(['keywords', 'summarize', 'glean', 'extract']);
  });
});

describe('withResilience retries', () => {
  test('a transient failure is retried and the call then succeeds', async () => {
    const fake = new FakeLlm();
    fake.script = [fail(new HttpLikeError(503)), fail(new Error('socket hang up'))];
    const llm = withResilience(fake, options({ retries: 2 }));
    await expect(llm.complete(MESSAGES)).resolves.toEqual({ text: 'ok', usage: USAGE });
    expect(fake.calls).toBe(3);
  });

  test('a 400 is not retried', async () => {
    const fake = new FakeLlm();
    fake.script = [fail(new HttpLikeError(400))];
    const llm = withResilience(fake, options({ retries: 3 }));
    await expect(llm.complete(MESSAGES)).rejects.toMatchObject({ status: 400 });
    expect(fake.calls).toBe(1);
  });

  test('429 and 408 are transient, other 4xx and aborts are not', () => {
    expect(isTransient(new HttpLikeError(429))).toBe(true);
    expect(isTransient(new HttpLikeError(408))).toBe(true);
    expect(isTransient(new HttpLikeError(500))).toBe(true);
    expect(isTransient(new HttpLikeError(401))).toBe(false);
    expect(isTransient(new DOMException('stop', 'AbortError'))).toBe(false);
  });

  test('retries stop after the configured number and the last error is thrown', async () => {
    const fake = new FakeLlm();
    fake.script = [1, 2, 3, 4].map((n) => fail(new HttpLikeError(500 + n)));
    const llm = withResilience(fake, options({ retries: 2 }));
    await expect(llm.complete(MESSAGES)).rejects.toMatchObject({ status: 503 });
    expect(fake.calls).toBe(3);
  });

  test('a stream that fails before its first fragment is retried', async () => {
    const fake = new FakeLlm();
    fake.script = [fail(new HttpLikeError(502))];
    const llm = withResilience(fake, options());
    const parts: string[] = [];
    for await (const p of llm.stream(MESSAGES)) parts.push(p);
    expect(parts.join('')).toBe('a b c');
    expect(fake.calls).toBe(2);
  });

  test('a stream that fails after its first fragment is not retried', async () => {
    const failing: LlmProvider = {
      provider: 'fake',
      model: 'x',
      complete: async () => ({ text: '', usage: USAGE }),
      async *stream() {
        yield 'first ';
        throw new HttpLikeError(502);
      },
    };
    const spy = jest.spyOn(failing, 'stream');
    const llm = withResilience(failing, options());
    const parts: string[] = [];
    await expect(
      (async () => {
        for await (const p of llm.stream(MESSAGES)) parts.push(p);
      })(),
    ).rejects.toMatchObject({ status: 502 });
    expect(parts).toEqual(['first ']);
    expect(spy).toHaveBeenCalledTimes(1);
  });
});

describe('withResilience timeouts and aborts', () => {
  test('a call exceeding the timeout is aborted with a ProviderTimeoutError and not retried', async () => {
    const fake = new FakeLlm();
    let sawAbort = false;
    fake.script = [
      async (signal) => {
        await hang(signal).catch((err: Error) => {
          sawAbort = true;
          throw err;
        });
      },
    ];
    const llm = withResilience(fake, options({ timeoutMs: 20, retries: 3 }));
    await expect(llm.complete(MESSAGES)).rejects.toBeInstanceOf(ProviderTimeoutError);
    expect(sawAbort).toBe(true);
    expect(fake.calls).toBe(1);
  });

  test('a provider that ignores its signal is still cut off by the timeout', async () => {
    const deaf: EmbeddingProvider = { provider: 'deaf', model: 'd', dimension: 2, embed: () => new Promise(() => undefined) };
    const embeddings = withResilience(deaf, options({ timeoutMs: 20, retries: 0 }));
    await expect(embeddings.embed(['x'])).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  test("the caller's abort rejects with an AbortError and is not retried", async () => {
    const fake = new FakeLlm();
    fake.script = [hang];
    const llm = withResilience(fake, options({ retries: 3 }));
    const controller = new AbortController();
    const call = llm.complete(MESSAGES, { signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(fake.calls).toBe(1);
  });

  test('a call waiting for a slot is abandoned when the caller aborts', async () => {
    const semaphore = new Semaphore(1);
    const fake = new FakeLlm();
    fake.script = [hang];
    const llm = withResilience(fake, options({ concurrency: 1, semaphore }));
    const blocker = new AbortController();
    const first = llm.complete(MESSAGES, { signal: blocker.signal }).catch(() => 'aborted');
    const waiting = llm.complete(MESSAGES, { signal: AbortSignal.timeout(10) });
    await expect(waiting).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(semaphore.waiting).toBe(0);
    blocker.abort();
    expect(await first).toBe('aborted');
    expect(fake.calls).toBe(1);
  });
});

describe('withResilience usage recording', () => {
  test('successful calls are reported with provider, model, task, tokens and the workspace of the usage context', async () => {
    const events: UsageEvent[] = [];
    const llm = withResilience(new FakeLlm(), options({ recorder: { record: (e) => events.push(e) } }));
    await runWithUsageContext({ workspace_id: 'ws-1' }, () => llm.complete(MESSAGES, { task: 'extract' }));
    for await (const _ of llm.stream(MESSAGES, { task: 'answer' })) void _;
    expect(events).toEqual([
      {
        provider: 'fake',
        model: 'fake-1',
        kind: 'llm',
        task: 'extract',
        input_tokens: 3,
        output_tokens: 2,
        workspace_id: 'ws-1',
        at: expect.any(Date),
      },
      {
        provider: 'fake',
        model: 'fake-1',
        kind: 'llm',
        task: 'answer',
        input_tokens: 3,
        output_tokens: 2,
        workspace_id: undefined,
        at: expect.any(Date),
      },
    ]);
  });

  test('embedding calls are reported with estimated input tokens; failures are not reported', async () => {
    const events: UsageEvent[] = [];
    const ok: EmbeddingProvider = { provider: 'e', model: 'm', dimension: 1, embed: async (t) => t.map(() => [1]) };
    const embeddings = withResilience(ok, options({ recorder: { record: (e) => events.push(e) } }));
    await embeddings.embed(['hello world', 'graph']);
    expect(events).toEqual([expect.objectContaining({ kind: 'embedding', provider: 'e', model: 'm', output_tokens: 0 })]);
    expect(events[0].input_tokens).toBeGreaterThanOrEqual(3);

    const fake = new FakeLlm();
    fake.script = [fail(new HttpLikeError(400))];
    const llm = withResilience(fake, options({ recorder: { record: (e) => events.push(e) } }));
    await expect(llm.complete(MESSAGES)).rejects.toBeDefined();
    expect(events).toHaveLength(1);
  });
});
