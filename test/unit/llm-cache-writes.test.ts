import { CACHE_WRITE_BATCH, settleCacheWrites, writeBehind } from '../../src/llm/cache/writes';
import { LLM_CACHE_NAMESPACE, cachedLlm } from '../../src/llm/cache/responses';
import type { ChatMessage, LlmProvider } from '../../src/llm/ports';
import { MemoryKeyValueStore } from '../../src/store/memory';

/** A memory store that records its batched writes and can be told to fail them. */
class CountingStore extends MemoryKeyValueStore {
  writes: Array<Array<[string, unknown]>> = [];
  failing = false;

  override async setMany(
    scope: Parameters<MemoryKeyValueStore['setMany']>[0],
    namespace: string,
    entries: Array<[string, unknown]>,
  ): Promise<void> {
    this.writes.push(entries);
    if (this.failing) throw new Error('the store is down');
    await super.setMany(scope, namespace, entries);
  }
}

/** Answers each question with a text naming it; keeps the questions it was asked. */
function echoLlm() {
  const calls: string[] = [];
  const llm: LlmProvider = {
    provider: 'test',
    model: 'echo',
    async complete(messages: ChatMessage[]) {
      const question = messages[messages.length - 1].content;
      calls.push(question);
      return { text: `answer to ${question}`, usage: { input_tokens: 1, output_tokens: 1 } };
    },
    // eslint-disable-next-line require-yield
    async *stream() {
      return { input_tokens: 0, output_tokens: 0 };
    },
  };
  return { llm, calls };
}

const ask = (llm: LlmProvider, question: string) => llm.complete([{ role: 'user', content: question }]);

describe('LLM cache entries written behind the calls', () => {
  const scope = { workspaceId: 'cache-writes' };

  test('answers of calls made together are written in one write, and found afterwards without a call', async () => {
    const kv = new CountingStore();
    const { llm: provider, calls } = echoLlm();
    const llm = cachedLlm(provider, kv, scope);

    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((q) => ask(llm, q)));
    expect(answers.map((a) => a.text)).toEqual(['answer to a', 'answer to b', 'answer to c', 'answer to d']);
    expect(kv.writes).toHaveLength(0);

    await settleCacheWrites();
    expect(kv.writes).toHaveLength(1);
    expect(kv.writes[0]).toHaveLength(4);
    expect(await kv.count(scope, LLM_CACHE_NAMESPACE)).toBe(4);

    const again = await ask(llm, 'c');
    expect(again).toMatchObject({ text: 'answer to c', cached: true });
    expect(calls).toEqual(['a', 'b', 'c', 'd']);
  });

  test('an identical call before the entry is written costs no call', async () => {
    const kv = new CountingStore();
    const { llm: provider, calls } = echoLlm();
    const llm = cachedLlm(provider, kv, scope);

    await ask(llm, 'same');
    const second = await ask(llm, 'same');
    expect(second).toMatchObject({ text: 'answer to same', cached: true, usage: { input_tokens: 0, output_tokens: 0 } });
    expect(calls).toEqual(['same']);
    await settleCacheWrites();
    expect(kv.writes.flat()).toHaveLength(1);
  });

  test('waiting entries are written by themselves after the linger', async () => {
    const kv = new CountingStore();
    const { llm: provider } = echoLlm();
    await ask(cachedLlm(provider, kv, scope), 'alone');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(kv.writes).toHaveLength(1);
    expect(await kv.count(scope, LLM_CACHE_NAMESPACE)).toBe(1);
  });

  test('a full batch is written at once, and workspaces and namespaces are written apart', async () => {
    const kv = new CountingStore();
    const other = { workspaceId: 'cache-writes-other' };
    const entries = Array.from({ length: CACHE_WRITE_BATCH }, (_, i) => writeBehind(kv, scope, 'n', `k${i}`, i));
    await Promise.all(entries);
    expect(kv.writes).toHaveLength(1);

    const apart = [writeBehind(kv, scope, 'n', 'x', 1), writeBehind(kv, other, 'n', 'x', 2), writeBehind(kv, scope, 'm', 'x', 3)];
    await settleCacheWrites();
    await Promise.all(apart);
    expect(kv.writes.slice(1).map((w) => w.length)).toEqual([1, 1, 1]);
    expect(await kv.get(other, 'n', 'x')).toBe(2);
  });

  test('a failed write is logged and leaves the answer; the next identical call asks again', async () => {
    const kv = new CountingStore();
    kv.failing = true;
    const { llm: provider, calls } = echoLlm();
    const warnings: unknown[] = [];
    const llm = cachedLlm(provider, kv, scope, { log: { warn: (obj: unknown) => void warnings.push(obj) } as never });

    expect((await ask(llm, 'lost')).text).toBe('answer to lost');
    await settleCacheWrites();
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toHaveLength(1);

    kv.failing = false;
    expect(await ask(llm, 'lost')).toMatchObject({ text: 'answer to lost' });
    expect(calls).toEqual(['lost', 'lost']);
  });
});
