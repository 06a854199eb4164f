import { CACHE_WRITE_BATCH, CacheWrites } from '../../src/llm/cache/writes';
import { LLM_CACHE_NAMESPACE, LlmCache } from '../../src/llm/cache/responses';
import { CountingStore, ask, echoLlm } from '../fixtures/echo-llm';

describe('LLM cache entries written behind the calls', () => {
  const scope = { workspaceId: 'cache-writes' };
  let cache: LlmCache;
  beforeEach(() => (cache = new LlmCache()));

  test('answers of calls made together are written in one write, and found afterwards without a call', async () => {
    const kv = new CountingStore();
    const { llm: provider, calls } = echoLlm();
    const llm = cache.wrap(provider, kv, scope);

    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((q) => ask(llm, q)));
    expect(answers.map((a) => a.text)).toEqual(['answer to a', 'answer to b', 'answer to c', 'answer to d']);
    expect(kv.writes).toHaveLength(0);

    await cache.settle();
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
    const llm = cache.wrap(provider, kv, scope);

    await ask(llm, 'same');
    const second = await ask(llm, 'same');
    expect(second).toMatchObject({ text: 'answer to same', cached: true, usage: { input_tokens: 0, output_tokens: 0 } });
    expect(calls).toEqual(['same']);
    await cache.settle();
    expect(kv.writes.flat()).toHaveLength(1);
  });

  test('waiting entries are written by themselves after the linger', async () => {
    const kv = new CountingStore();
    const { llm: provider } = echoLlm();
    await ask(cache.wrap(provider, kv, scope), 'alone');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(kv.writes).toHaveLength(1);
    expect(await kv.count(scope, LLM_CACHE_NAMESPACE)).toBe(1);
  });

  test('a full batch is written at once, and workspaces and namespaces are written apart', async () => {
    const kv = new CountingStore();
    const other = { workspaceId: 'cache-writes-other' };
    const writes = new CacheWrites();
    const writeBehind = writes.writeBehind.bind(writes);
    const entries = Array.from({ length: CACHE_WRITE_BATCH }, (_, i) => writeBehind(kv, scope, 'n', `k${i}`, i));
    await Promise.all(entries);
    expect(kv.writes).toHaveLength(1);

    const apart = [writeBehind(kv, scope, 'n', 'x', 1), writeBehind(kv, other, 'n', 'x', 2), writeBehind(kv, scope, 'm', 'x', 3)];
    await writes.settle();
    await Promise.all(apart);
    expect(kv.writes.slice(1).map((w) => w.length)).toEqual([1, 1, 1]);
    expect(await kv.get(other, 'n', 'x')).toBe(2);
  });

  test('a failed write is logged and leaves the answer; the next identical call asks again', async () => {
    const kv = new CountingStore();
    kv.failing = true;
    const { llm: provider, calls } = echoLlm();
    const warnings: unknown[] = [];
    const llm = cache.wrap(provider, kv, scope, { log: { warn: (obj: unknown) => void warnings.push(obj) } as never });

    expect((await ask(llm, 'lost')).text).toBe('answer to lost');
    await cache.settle();
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toHaveLength(1);

    kv.failing = false;
    expect(await ask(llm, 'lost')).toMatchObject({ text: 'answer to lost' });
    expect(calls).toEqual(['lost', 'lost']);
  });

  test('each cache keeps its own calls in flight and its own waiting entries', async () => {
    const kv = new CountingStore();
    const { llm: provider, calls } = echoLlm();
    const other = new LlmCache();
    await ask(cache.wrap(provider, kv, scope), 'twice');
    // The first cache's entry still waits and its call counts as in flight there only: the other cache asks.
    expect(await ask(other.wrap(provider, kv, scope), 'twice')).not.toHaveProperty('cached');
    expect(calls).toEqual(['twice', 'twice']);
    await other.close();
    expect(kv.writes).toHaveLength(1);
    await cache.close();
    expect(kv.writes).toHaveLength(2);
  });
});
