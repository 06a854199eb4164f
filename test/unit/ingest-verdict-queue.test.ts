import type { Scope } from '../../src/domain/types';
import { MergeClaims } from '../../src/ingest/embed/claims';
import { VerdictQueue } from '../../src/ingest/verdict-queue';
import type { ChatMessage, Completion, LlmProvider } from '../../src/llm/ports';
import { currentUsageContext, runWithUsageContext } from '../../src/llm/usage';
import { parseResolutionPairs, RESOLUTION_BATCH, type ResolutionPair } from '../../src/prompts/entity-resolution';

/**
 * Resolution's confirmation calls shared by the documents in flight of a workspace: pairs wait for a full batch
 * while documents of the workspace have yet to ask, and go out short of one when none has, after so many merges,
 * or at the deadline; each document gets its own verdicts, the call is charged to the first, tokens are shared.
 */

const A: Scope = { workspaceId: 'ws-a' };
const B: Scope = { workspaceId: 'ws-b' };

/** An LLM that answers YES for pairs whose names are equal ignoring case, and records what it was asked. */
function judge() {
  const calls: Array<{ pairs: ResolutionPair[]; document?: string }> = [];
  let fail = false;
  const llm: LlmProvider = {
    provider: 'test',
    model: 'judge',
    async complete(messages: ChatMessage[]): Promise<Completion> {
      const pairs = parseResolutionPairs(messages[1].content.split('---TEXT---')[1]);
      calls.push({ pairs, document: currentUsageContext()?.document_id });
      await Promise.resolve();
      if (fail) throw new Error('model down');
      const text = pairs.map(([a, b], i) => `${i + 1}: ${a.name.toLowerCase() === b.name.toLowerCase() ? 'YES' : 'NO'}`).join('\n');
      return { text, usage: { input_tokens: 100 * pairs.length, output_tokens: 7 }, cached: false } as Completion;
    },
    stream: () => {
      throw new Error('not used');
    },
  };
  return { llm, calls, down: () => (fail = true) };
}

const subject = (name: string) => ({ name, type: 'ORGANIZATION', description: `${name} makes things.` });
/** `n` pairs named after `tag`, the even ones the same entity. */
const pairs = (tag: string, n: number): ResolutionPair[] =>
  Array.from({ length: n }, (_, i) => [subject(`${tag} ${i}`), subject(i % 2 === 0 ? `${tag.toUpperCase()} ${i}` : `${tag} other ${i}`)]);
const expected = (n: number) => Array.from({ length: n }, (_, i) => i % 2 === 0);

const ask = (queue: VerdictQueue, scope: Scope, llm: LlmProvider, document: string, asked: ResolutionPair[]) =>
  runWithUsageContext({ document_id: document }, () => queue.ask(scope, llm, asked));

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('VerdictQueue', () => {
  it('answers a document alone at once when no other document of its workspace has yet to ask', async () => {
    const claims = new MergeClaims();
    const queue = new VerdictQueue(claims);
    const other = queue.expect(B);
    const { llm, calls } = judge();
    const answers = await ask(queue, A, llm, 'd1', pairs('alpha', 3));
    expect(answers.verdicts).toEqual(expected(3));
    expect(answers.calls).toBe(1);
    expect(answers.usage).toEqual({ input_tokens: 300, output_tokens: 7 });
    expect(calls).toHaveLength(1);
    other();
  });

  it('puts the pairs of documents asking one after another into shared calls of RESOLUTION_BATCH', async () => {
    const claims = new MergeClaims();
    const queue = new VerdictQueue(claims);
    const { llm, calls } = judge();
    const ahead = [queue.expect(A), queue.expect(A), queue.expect(A), queue.expect(A)];
    // Three documents of 6 pairs each: the first two wait for more while documents of the workspace have yet to ask.
    const first = ask(queue, A, llm, 'd1', pairs('alpha', 6));
    ahead[0]();
    const second = ask(queue, A, llm, 'd2', pairs('beta', 6));
    ahead[1]();
    await tick();
    expect(calls).toHaveLength(0);
    const third = ask(queue, A, llm, 'd3', pairs('gamma', 6));
    ahead[2]();
    await tick();
    // 18 pairs: one full call at once, the 2 left wait for the last document, which passes without pairs.
    expect(calls.map((c) => c.pairs.length)).toEqual([RESOLUTION_BATCH]);
    expect(calls[0].document).toBe('d1');
    ahead[3]();
    const [a, b, c] = await Promise.all([first, second, third]);
    expect(calls.map((c) => c.pairs.length)).toEqual([RESOLUTION_BATCH, 18 - RESOLUTION_BATCH]);
    expect(calls[1].document).toBe('d3');
    for (const answers of [a, b, c]) expect(answers.verdicts).toEqual(expected(6));
    // The first call is d1's, the second d3's; tokens follow the pairs (6, 6 and 4 + 2 of 16 and 2).
    expect([a.calls, b.calls, c.calls]).toEqual([1, 0, 1]);
    expect([a.usage.input_tokens, b.usage.input_tokens, c.usage.input_tokens]).toEqual([600, 600, 600]);
    expect(a.usage.output_tokens + b.usage.output_tokens + c.usage.output_tokens).toBe(14);
  });

  it('does not hold a workspace for documents of another', async () => {
    const claims = new MergeClaims();
    const queue = new VerdictQueue(claims);
    const { llm, calls } = judge();
    const elsewhere = queue.expect(B);
    const mine = queue.expect(A);
    const waiting = ask(queue, A, llm, 'd1', pairs('alpha', 2));
    await tick();
    expect(calls).toHaveLength(0);
    mine();
    mine();
    expect((await waiting).verdicts).toEqual(expected(2));
    elsewhere();
  });

  it('sends pairs short of a batch once so many documents have merged since they came', async () => {
    const claims = new MergeClaims();
    const queue = new VerdictQueue(claims, { merges: 3, deadlineMs: 60_000 });
    const { llm, calls } = judge();
    const left = queue.expect(A);
    const waiting = ask(queue, A, llm, 'd1', pairs('alpha', 2));
    for (let i = 0; i < 2; i++) claims.claim().release();
    await tick();
    expect(calls).toHaveLength(0);
    claims.claim().release();
    expect((await waiting).verdicts).toEqual(expected(2));
    left();
  });

  it('sends pairs short of a batch at the deadline when the documents left stall', async () => {
    const claims = new MergeClaims();
    const queue = new VerdictQueue(claims, { merges: 100, deadlineMs: 30 });
    const { llm } = judge();
    const stalled = queue.expect(A);
    expect((await ask(queue, A, llm, 'd1', pairs('alpha', 2))).verdicts).toEqual(expected(2));
    stalled();
  });

  it('fails every document with a pair in a failed call, and drops what they still had waiting', async () => {
    const claims = new MergeClaims();
    const queue = new VerdictQueue(claims);
    const { llm, calls, down } = judge();
    const left = queue.expect(A);
    const first = ask(queue, A, llm, 'd1', pairs('alpha', 10));
    const second = ask(queue, A, llm, 'd2', pairs('beta', 10));
    down();
    await expect(first).rejects.toThrow('model down');
    await expect(second).rejects.toThrow('model down');
    left();
    await tick();
    // The 4 pairs of d2 left after the failed call are not asked.
    expect(calls.map((c) => c.pairs.length)).toEqual([RESOLUTION_BATCH]);
  });
});
