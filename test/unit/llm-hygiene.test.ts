import { ReasoningFilter, finishReasonOf, stripReasoning, unfence, withOutputHygiene } from '../../src/llm/hygiene';
import { MockLlm } from '../../src/llm/mock';

describe('stripReasoning', () => {
  test.each([
    ['<think>plan</think>\nAnswer.', 'Answer.'],
    ['<THINKING>a\nb</THINKING>Answer <reasoning>x</reasoning>here.', 'Answer here.'],
    ['plan only</think>\n\nAnswer.', 'Answer.'],
    ['Answer.<think>cut off while thinking', 'Answer.'],
    ['<think>cut off while thinking', ''],
    ['No reasoning at all, a < b.', 'No reasoning at all, a < b.'],
  ])('%j -> %j', (input, expected) => expect(stripReasoning(input)).toBe(expected));
});

describe('ReasoningFilter', () => {
  const run = (fragments: string[]) => {
    const filter = new ReasoningFilter();
    return fragments.map((f) => filter.push(f)).join('') + filter.end();
  };
  test('holds back a block whose tags are split across fragments', () => {
    expect(run(['<th', 'ink>I should ', 'say hi</th', 'ink>', '\n', 'Hello', ' there'])).toBe('Hello there');
  });
  test('passes text without blocks, a lone < included', () => {
    expect(run(['a < b', ' and c', ' <'])).toBe('a < b and c <');
  });
  test('an unclosed block at the end is dropped', () => {
    expect(run(['Hi. ', '<think>', 'never closed'])).toBe('Hi. ');
  });
});

describe('withOutputHygiene', () => {
  test('a reasoning model (the mock named mock-think) answers without its block, whole and streamed', async () => {
    const llm = withOutputHygiene(new MockLlm('mock', 'mock-think'));
    const messages = [{ role: 'user' as const, content: 'What is in the text? ---TEXT---' }];
    const whole = await llm.complete(messages, { task: 'answer' });
    expect(whole.text).not.toMatch(/think|Inner Thought/);
    let streamed = '';
    for await (const fragment of llm.stream(messages, { task: 'answer' })) streamed += fragment;
    expect(streamed).toBe(whole.text);
  });
});

test('finishReasonOf reads OpenAI and Ollama metadata', () => {
  expect(finishReasonOf({ finish_reason: 'length' })).toBe('length');
  expect(finishReasonOf({ done_reason: 'stop' })).toBe('stop');
  expect(finishReasonOf({})).toBeUndefined();
});

test('unfence keeps what fences held', () => {
  expect(unfence('```json\n{"a": 1}\n```')).toBe('\n{"a": 1}\n');
});
