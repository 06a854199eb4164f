import { jsonBytes } from '../../src/http/json-bytes';

const context = Array.from({ length: 3000 }, (_, i) => `line ${i}: "quoted" \\ tab\there`).join('\n');

const VALUES: unknown[] = [
  // A query answer: a long one-byte context beside snippets that end with '…'.
  {
    answer: '',
    mode: 'hybrid',
    sources: [{ id: 'd-chunk-0', snippet: 'Acme builds…', score: 0.5 }],
    stats: { total_ms: 3 },
    reranked: true,
    context,
    prompt: undefined,
  },
  { context: `${context} Zürich 東京 😀 \ud800 lone surrogate`, n: 1 },
  { when: new Date('2024-01-01T00:00:00Z'), skip: () => 1, sym: Symbol('s'), nested: { a: undefined, b: [undefined, 1] } },
  { withToJSON: { toJSON: () => 'custom' }, big: 'x'.repeat(10_000) },
  { toJSON: () => ({ replaced: true }) },
  Object.assign(Object.create(null) as Record<string, unknown>, { a: 1, b: 'two' }),
  {},
  { only: undefined },
  [1, 'two', { three: 3 }],
  'a string',
  42,
  null,
];

describe('jsonBytes', () => {
  it.each(VALUES.map((v, i) => [i, v]))('gives the UTF-8 bytes of JSON.stringify (value %i)', (_, value) => {
    expect(jsonBytes(value).equals(Buffer.from(JSON.stringify(value) ?? 'null'))).toBe(true);
  });
});
