import { COMPLETION_MARKER, FIELD_DELIMITER } from '../../src/prompts/record-format';
import { MockEmbeddings, MockLlm, MOCK_TEXT_MARKER } from '../../src/llm/mock';
import type { ChatMessage } from '../../src/llm/ports';

const PARAGRAPH = [
  'Alice Smith works with Bob Jones at Acme Corp.',
  'Acme Corp is located in Paris.',
  'The company uses Python and Neo4j to build a Knowledge Graph.',
  'Dr. Watson joined the University of Oxford in 2020.',
].join(' ');

const extractPrompt = (text: string): ChatMessage[] => [
  { role: 'system', content: 'You extract entities and relationships as records.' },
  { role: 'user', content: `Extract from the text below.\n${MOCK_TEXT_MARKER}\n${text}` },
];

/** The record format, read the simple way the format comment describes. */
function parseRecords(output: string) {
  const lines = output.trim().split('\n');
  const entities = new Map<string, string>();
  const relations: Array<{ source: string; target: string; keyword: string }> = [];
  for (const line of lines.slice(0, -1)) {
    const fields = line.split(FIELD_DELIMITER);
    if (fields[0] === 'entity') {
      expect(fields).toHaveLength(4);
      expect(fields[3].length).toBeGreaterThan(0);
      entities.set(fields[1], fields[2]);
    } else {
      expect(fields[0]).toBe('relation');
      expect(fields).toHaveLength(5);
      relations.push({ source: fields[1], target: fields[2], keyword: fields[3].split(',')[0].trim() });
    }
  }
  return { entities, relations, last: lines[lines.length - 1] };
}

async function collect(gen: AsyncGenerator<string, unknown, void>): Promise<{ parts: string[]; result: unknown }> {
  const parts: string[] = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) return { parts, result: step.value };
    parts.push(step.value);
  }
}

describe('MockLlm extraction', () => {
  test('a paragraph yields typed entity and relation records ending with the completion marker', async () => {
    const { text } = await new MockLlm().complete(extractPrompt(PARAGRAPH), { task: 'extract' });
    const { entities, relations, last } = parseRecords(text);
    expect(last).toBe(COMPLETION_MARKER);
    expect(Object.fromEntries(entities)).toMatchObject({
      'Alice Smith': 'PERSON',
      'Bob Jones': 'PERSON',
      'Acme Corp': 'ORGANIZATION',
      Paris: 'LOCATION',
      Python: 'TECHNOLOGY',
      'University of Oxford': 'ORGANIZATION',
    });
    expect(relations).toEqual(
      expect.arrayContaining([
        { source: 'Alice Smith', target: 'Bob Jones', keyword: 'works with' },
        { source: 'Acme Corp', target: 'Paris', keyword: 'located in' },
      ]),
    );
    // Relations only join entities of the same sentence.
    expect(relations.find((r) => r.target === 'Paris' && r.source === 'Alice Smith')).toBeUndefined();
  });

  test('extraction is deterministic across calls and instances', async () => {
    const a = await new MockLlm().complete(extractPrompt(PARAGRAPH), { task: 'extract' });
    const b = await new MockLlm().complete(extractPrompt(PARAGRAPH), { task: 'extract' });
    expect(a).toEqual(b);
    expect(a.usage.input_tokens).toBeGreaterThan(0);
    expect(a.usage.output_tokens).toBeGreaterThan(0);
  });

  test('without the marker the whole last user message is the text', async () => {
    const { text } = await new MockLlm().complete([{ role: 'user', content: 'Marie Curie worked in Paris.' }], { task: 'extract' });
    expect(parseRecords(text).entities).toEqual(
      new Map([
        ['Marie Curie', 'PERSON'],
        ['Paris', 'LOCATION'],
      ]),
    );
  });

  test('gleaning after a complete extraction returns only the completion marker', async () => {
    const llm = new MockLlm();
    const first = await llm.complete(extractPrompt(PARAGRAPH), { task: 'extract' });
    const messages: ChatMessage[] = [
      ...extractPrompt(PARAGRAPH),
      { role: 'assistant', content: first.text },
      { role: 'user', content: 'Some entities were missed. Add them in the same format.' },
    ];
    expect((await llm.complete(messages, { task: 'glean' })).text).toBe(COMPLETION_MARKER);
  });

  test('gleaning returns only the entities the earlier output did not name', async () => {
    const partial = ['entity<|>Alice Smith<|>PERSON<|>x', 'entity<|>Bob Jones<|>PERSON<|>x', COMPLETION_MARKER].join('\n');
    const messages: ChatMessage[] = [
      ...extractPrompt('Alice Smith works with Bob Jones at Acme Corp.'),
      { role: 'assistant', content: partial },
      { role: 'user', content: 'Continue.' },
    ];
    const { entities, relations, last } = parseRecords((await new MockLlm().complete(messages, { task: 'glean' })).text);
    expect([...entities.keys()]).toEqual(['Acme Corp']);
    const known = ['Alice Smith', 'Bob Jones', 'Acme Corp'];
    expect(relations.length).toBeGreaterThan(0);
    expect(relations.every((r) => known.includes(r.source) && known.includes(r.target))).toBe(true);
    expect(relations.some((r) => r.source === 'Acme Corp' || r.target === 'Acme Corp')).toBe(true);
    expect(last).toBe(COMPLETION_MARKER);
  });
});

describe('MockLlm keywords, summaries and answers', () => {
  test('keywords are JSON with high- and low-level lists', async () => {
    const { text } = await new MockLlm().complete(
      [{ role: 'user', content: 'Question: How does Acme Corp use knowledge graphs for recommendation?' }],
      { task: 'keywords', json: true },
    );
    const parsed = JSON.parse(text) as { high_level_keywords: string[]; low_level_keywords: string[] };
    expect(parsed.low_level_keywords).toContain('Acme Corp');
    expect(parsed.high_level_keywords).toContain('recommendation');
  });

  test('a summary joins the fragments without repeating sentences and stays short', async () => {
    const fragments = ['Alice is a researcher.', 'Alice is a researcher. She studies graphs.', 'She studies graphs.'].join('<SEP>');
    const { text } = await new MockLlm().complete([{ role: 'user', content: `Summarise.\n${MOCK_TEXT_MARKER}\n${fragments}` }], {
      task: 'summarize',
    });
    expect(text).toBe('Alice is a researcher. She studies graphs.');
    const long = Array.from({ length: 50 }, (_, i) => `Fact number ${i} about the entity.`).join('\n');
    const summary = await new MockLlm().complete([{ role: 'user', content: `${MOCK_TEXT_MARKER}\n${long}` }], { task: 'summarize' });
    expect(summary.text.length).toBeLessThanOrEqual(600);
  });

  const context = [
    '---Role---',
    'You answer questions about Acme Corp from the context below.',
    '---Context---',
    '[1] Acme Corp is located in Paris. The weather was nice.',
    '[2] Bob Jones leads the graph team at Acme Corp.',
    '{"reference_id": "3", "content": "Rust is a systems language."}',
  ].join('\n');

  test('an answer quotes the context sentences sharing most words with the question and cites their references', async () => {
    const { text } = await new MockLlm().complete(
      [
        { role: 'system', content: context },
        { role: 'user', content: 'Where is Acme Corp located?' },
      ],
      { task: 'answer' },
    );
    expect(text).toContain('Acme Corp is located in Paris. [1]');
    expect(text).not.toContain('You answer');
    expect(text).not.toContain('weather');
    expect(text).not.toContain('Rust');
  });

  test('when no context was retrieved the answer says the knowledge base has no information', async () => {
    const { text } = await new MockLlm().complete([
      { role: 'system', content: 'No context was retrieved for this question.' },
      { role: 'user', content: 'Who founded Globex?' },
    ]);
    expect(text).toMatch(/knowledge base has no information/);
  });

  test('streaming yields word-sized fragments that join to the complete answer, then the usage', async () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: context },
      { role: 'user', content: 'Who leads the graph team?' },
    ];
    const llm = new MockLlm();
    const complete = await llm.complete(messages, { task: 'answer' });
    const { parts, result } = await collect(llm.stream(messages, { task: 'answer' }));
    expect(parts.length).toBeGreaterThan(3);
    expect(parts.every((p) => p.trim().split(/\s+/).length === 1)).toBe(true);
    expect(parts.join('')).toBe(complete.text);
    expect(result).toEqual(complete.usage);
  });
});

describe('MockLlm prompts without a task (as they arrive over HTTP)', () => {
  const recordFormatSystem = `Write records: entity${FIELD_DELIMITER}NAME${FIELD_DELIMITER}TYPE, then ${COMPLETION_MARKER}.`;

  test('reads extraction from a system message that asks for the record format, and gleaning when output follows', async () => {
    const llm = new MockLlm();
    const messages: ChatMessage[] = [
      { role: 'system', content: recordFormatSystem },
      { role: 'user', content: `${MOCK_TEXT_MARKER}\n${PARAGRAPH}` },
    ];
    const asked = await llm.complete(messages, { task: 'extract' });
    const read = await llm.complete(messages);
    expect(read.text).toBe(asked.text);
    expect(parseRecords(read.text).entities.size).toBeGreaterThan(2);
    const more = [
      ...messages,
      { role: 'assistant' as const, content: asked.text },
      { role: 'user' as const, content: 'Add what was missed.' },
    ];
    expect((await llm.complete(more)).text).toBe((await llm.complete(more, { task: 'glean' })).text);
  });

  test('reads keywords from JSON mode and an answer from anything else', async () => {
    const question: ChatMessage[] = [{ role: 'user', content: 'Question: How does Acme Corp use knowledge graphs?' }];
    const llm = new MockLlm();
    expect((await llm.complete(question, { json: true })).text).toBe((await llm.complete(question, { task: 'keywords' })).text);
    expect((await llm.complete(question)).text).toBe((await llm.complete(question, { task: 'answer' })).text);
  });

  test('an answer stops after maxTokens tokens and before a stop sequence, streamed or not', async () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: '[1] Acme Corp is located in Paris. Acme Corp builds graph databases for banks.' },
      { role: 'user', content: 'Where is Acme Corp and what does it build?' },
    ];
    const llm = new MockLlm();
    const whole = (await llm.complete(messages, { task: 'answer' })).text;
    const short = await llm.complete(messages, { task: 'answer', maxTokens: 3 });
    expect(short.usage.output_tokens).toBe(3);
    expect(whole.startsWith(short.text)).toBe(true);
    const { parts } = await collect(llm.stream(messages, { task: 'answer', maxTokens: 3 }));
    expect(parts.join('')).toBe(short.text);
    const stopped = await llm.complete(messages, { task: 'answer', stop: ['Paris'] });
    expect(stopped.text).toBe(whole.slice(0, whole.indexOf('Paris')));
    // Structured outputs are never cut: their format would break.
    const keywords = await llm.complete([{ role: 'user', content: 'Question: Acme Corp in Paris' }], { task: 'keywords', maxTokens: 2 });
    expect(() => JSON.parse(keywords.text) as unknown).not.toThrow();
  });
});

describe('MockLlm latency', () => {
  test('simulated latency is applied: a zero-latency call started later finishes first', async () => {
    const order: string[] = [];
    const slow = new MockLlm('mock', 'mock-llm', 40).complete([{ role: 'user', content: 'hi' }]).then(() => order.push('slow'));
    const fast = new MockLlm('mock', 'mock-llm', 0).complete([{ role: 'user', content: 'hi' }]).then(() => order.push('fast'));
    await Promise.all([slow, fast]);
    expect(order).toEqual(['fast', 'slow']);
  });

  test('aborting during the simulated latency rejects with an AbortError', async () => {
    const controller = new AbortController();
    const call = new MockLlm('mock', 'mock-llm', 60_000).complete([{ role: 'user', content: 'hi' }], { signal: controller.signal });
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    const stream = new MockLlm('mock', 'mock-llm', 60_000).stream([{ role: 'user', content: 'hi' }], { signal: AbortSignal.abort() });
    await expect(stream.next()).rejects.toMatchObject({ name: 'AbortError' });
  });

  test('a token delay spaces the streamed fragments out, with the same text as without it', async () => {
    const messages = [{ role: 'user' as const, content: 'Alice Johnson works with Bob Smith at Acme.' }];
    const arrivals: number[] = [];
    const parts: string[] = [];
    for await (const part of new MockLlm('mock', 'mock-llm', 0, 25).stream(messages, { task: 'answer' })) {
      arrivals.push(performance.now());
      parts.push(part);
    }
    const plain = await collect(new MockLlm().stream(messages, { task: 'answer' }));
    expect(parts).toEqual(plain.parts);
    expect(parts.length).toBeGreaterThan(2);
    // Each fragment after the first waited for the delay (timers never fire early).
    const gaps = arrivals.slice(1).map((t, i) => t - arrivals[i]);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(20);
  });

  test('aborting between delayed fragments stops the stream with an AbortError', async () => {
    const controller = new AbortController();
    const stream = new MockLlm('mock', 'mock-llm', 0, 60_000).stream([{ role: 'user', content: 'Alice works at Acme in Berlin.' }], {
      task: 'answer',
      signal: controller.signal,
    });
    expect((await stream.next()).done).toBe(false);
    const next = stream.next();
    controller.abort();
    await expect(next).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('MockEmbeddings', () => {
  const cosine = (a: number[], b: number[]) => a.reduce((s, v, i) => s + v * b[i], 0);

  test('vectors are deterministic, of the configured dimension and unit length', async () => {
    const e = new MockEmbeddings('mock', 'mock-embedding', 64);
    const [a] = await e.embed(['Alice works at Acme Corp in Paris']);
    const [b] = await new MockEmbeddings('mock', 'mock-embedding', 64).embed(['Alice works at Acme Corp in Paris']);
    expect(a).toHaveLength(64);
    expect(a).toEqual(b);
    expect(Math.sqrt(cosine(a, a))).toBeCloseTo(1, 10);
  });

  test('similar texts are closer than unrelated texts', async () => {
    const [q, similar, unrelated] = await new MockEmbeddings().embed([
      'Alice works at Acme Corp in Paris',
      'Alice Smith is working for Acme Corporation in Paris',
      'Quantum chromodynamics describes gluons and quarks',
    ]);
    expect(cosine(q, similar)).toBeGreaterThan(cosine(q, unrelated) + 0.3);
  });

  test('empty text gives a finite zero vector', async () => {
    const [v] = await new MockEmbeddings().embed(['']);
    expect(v.every((x) => x === 0)).toBe(true);
  });

  test('aborting during the simulated latency rejects with an AbortError', async () => {
    const controller = new AbortController();
    const call = new MockEmbeddings('mock', 'mock-embedding', 8, 60_000).embed(['x'], controller.signal);
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
  });
});
