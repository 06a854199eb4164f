import { LLM_CACHE_NAMESPACE, LlmCache } from '../../src/llm/cache/responses';
import { type CachedExtraction, EXTRACTION_NAMESPACE, extractWithCache } from '../../src/ingest/extract/cache';
import { extractChunk } from '../../src/ingest/extract/extract';
import { parseExtraction } from '../../src/ingest/extract/parser';
import { extractionPrompt, gleaningPrompt } from '../../src/ingest/extract/prompt';
import { extractionMetadata } from '../../src/lineage/cache';
import type { ChatMessage, CompletionOptions, LlmProvider } from '../../src/llm/ports';
import { MemoryKeyValueStore } from '../../src/store/memory';

describe('parseExtraction', () => {
  test('reads records in the prompt format and normalises ids, types and relation types', () => {
    const parsed = parseExtraction(
      [
        'entity<|>Alice  Smith<|>person<|>Alice is an engineer.',
        'entity<|>Acme Corp<|>Organization<|>Acme builds engines.',
        'relation<|>Alice Smith<|>Acme Corp<|>works for, employment<|>Alice works for Acme.',
        '<|COMPLETE|>',
      ].join('\n'),
    );
    expect(parsed.dropped).toBe(0);
    expect(parsed.entities).toEqual([
      { id: 'ALICE_SMITH', name: 'Alice Smith', type: 'PERSON', description: 'Alice is an engineer.' },
      { id: 'ACME_CORP', name: 'Acme Corp', type: 'ORGANIZATION', description: 'Acme builds engines.' },
    ]);
    expect(parsed.relations).toEqual([
      {
        id: 'ACME_CORP|ALICE_SMITH',
        source: 'ACME_CORP',
        target: 'ALICE_SMITH',
        source_name: 'Acme Corp',
        target_name: 'Alice Smith',
        keywords: ['works for', 'employment'],
        relation_type: 'WORKS_FOR',
        description: 'Alice works for Acme.',
      },
    ]);
  });

  test('tolerates LightRAG-style wrappers, quotes, ## separators, bullets and a missing completion marker', () => {
    const parsed = parseExtraction(
      [
        'Here are the records:',
        '("entity"<|>"Marie Curie"<|>"person"<|>"A physicist.")##("entity"<|>"Paris"<|>"location"<|>"A city.")##',
        '- ("relationship"<|>"Marie Curie"<|>"Paris"<|>"She worked in Paris."<|>"lives in, research"<|>8)',
        '2. entity <|> Radium <|> concept <|> An element. ',
        "entity<|#|>Sorbonne<|#|>ORGANIZATION<|#|>'A university.'",
      ].join('\n'),
    );
    expect(parsed.dropped).toBe(0);
    expect(parsed.entities.map((e) => [e.id, e.type, e.description])).toEqual([
      ['MARIE_CURIE', 'PERSON', 'A physicist.'],
      ['PARIS', 'LOCATION', 'A city.'],
      ['RADIUM', 'CONCEPT', 'An element.'],
      ['SORBONNE', 'ORGANIZATION', 'A university.'],
    ]);
    expect(parsed.relations).toHaveLength(1);
    expect(parsed.relations[0]).toMatchObject({
      id: 'MARIE_CURIE|PARIS',
      keywords: ['lives in', 'research'],
      relation_type: 'LIVES_IN',
      description: 'She worked in Paris.',
    });
  });

  test('drops and counts malformed records and self-loops, keeping the good ones', () => {
    const parsed = parseExtraction(
      [
        'entity<|>Good One<|>PERSON<|>Fine.',
        'entity<|>',
        'entity<|><|>PERSON<|>no name',
        'relation<|>Good One',
        'relation<|>Good One<|>good one<|>self<|>A self-loop.',
        'widget<|>x<|>y',
        'entity<|>!!!<|>CONCEPT<|>no letters',
        'relation<|>Good One<|>Other Thing<|><|>no keywords',
        'just prose without any delimiter',
      ].join('\n'),
    );
    expect(parsed.entities.map((e) => e.id)).toEqual(['GOOD_ONE']);
    expect(parsed.relations.map((r) => [r.id, r.relation_type, r.keywords])).toEqual([['GOOD_ONE|OTHER_THING', 'RELATED_TO', []]]);
    expect(parsed.dropped).toBe(6);
  });

  test('merges repeated records: longest description, first known type, united keywords', () => {
    const parsed = parseExtraction(
      [
        'entity<|>Neo4j<|>unknown<|>A database.',
        'entity<|>NEO4J<|>TECHNOLOGY<|>A graph database with Cypher.',
        'relation<|>Neo4j<|>Cypher<|>uses<|>Short.',
        'relation<|>Cypher<|>Neo4j<|>query language, uses<|>Neo4j is queried with Cypher.',
      ].join('\n'),
    );
    expect(parsed.entities).toEqual([{ id: 'NEO4J', name: 'Neo4j', type: 'TECHNOLOGY', description: 'A graph database with Cypher.' }]);
    expect(parsed.relations).toHaveLength(1);
    expect(parsed.relations[0]).toMatchObject({
      keywords: ['uses', 'query language'],
      relation_type: 'USES',
      description: 'Neo4j is queried with Cypher.',
    });
  });

  test('never throws on arbitrary output', () => {
    for (const junk of ['', '<|COMPLETE|>', '((((', '<|><|><|>', 'entity', '\u0000\uFFFD##']) {
      expect(() => parseExtraction(junk)).not.toThrow();
    }
  });
});

describe('prompts', () => {
  test('put the chunk text after a ---TEXT--- line and continue the conversation for gleaning', () => {
    const messages = extractionPrompt('Alice met Bob.', { entityTypes: ['PERSON'] });
    expect(messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(messages[1].content.endsWith('---TEXT---\nAlice met Bob.')).toBe(true);
    expect(messages[1].content).toContain('Entity types: PERSON');
    const glean = gleaningPrompt('Alice met Bob.', ['entity<|>Alice<|>PERSON<|>x', '<|COMPLETE|>']);
    expect(glean.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(glean[2].content).toBe('entity<|>Alice<|>PERSON<|>x\n<|COMPLETE|>');
    expect(glean[3].content).toMatch(/missed.*only the new ones.*<\|COMPLETE\|>/s);
  });
});

/** Answers extraction calls from a script, one answer per call, and records the tasks asked for. */
function scriptedLlm(answers: string[]): LlmProvider & { tasks: Array<string | undefined>; conversations: ChatMessage[][] } {
  const tasks: Array<string | undefined> = [];
  const conversations: ChatMessage[][] = [];
  return {
    provider: 'script',
    model: 'script-1',
    tasks,
    conversations,
    async complete(messages: ChatMessage[], options?: CompletionOptions) {
      tasks.push(options?.task);
      conversations.push(messages);
      const text = answers[tasks.length - 1] ?? '<|COMPLETE|>';
      return { text, usage: { input_tokens: 10, output_tokens: 5 } };
    },
    // eslint-disable-next-line require-yield -- a stream that ends before its first token
    async *stream(): AsyncGenerator<string, { input_tokens: number; output_tokens: number }, void> {
      return { input_tokens: 0, output_tokens: 0 };
    },
  };
}

describe('extractChunk', () => {
  const first = 'entity<|>Alice<|>PERSON<|>An engineer.\nentity<|>Bob<|>PERSON<|>A manager.\n<|COMPLETE|>';

  test('stops gleaning at the first pass that adds nothing new', async () => {
    const llm = scriptedLlm([
      first,
      'relation<|>Alice<|>Bob<|>reports to<|>Alice reports to Bob.\n<|COMPLETE|>',
      'entity<|>Alice<|>PERSON<|>An engineer again.\n<|COMPLETE|>',
      'entity<|>Carol<|>PERSON<|>Never asked for.',
    ]);
    const result = await extractChunk(llm, { content: 'Alice reports to Bob.' }, { enableGleaning: true, maxGleaning: 5 });
    expect(llm.tasks).toEqual(['extract', 'glean', 'glean']);
    expect(result.llm_calls).toBe(3);
    expect(result.raw_outputs).toHaveLength(3);
    expect(result.entities.map((e) => e.id)).toEqual(['ALICE', 'BOB']);
    expect(result.relations.map((r) => r.id)).toEqual(['ALICE|BOB']);
    expect(result.entities[0].description).toBe('An engineer again.');
    expect(result.usage).toEqual({ input_tokens: 30, output_tokens: 15 });
    expect(llm.conversations[2][2]).toEqual({
      role: 'assistant',
      content: `${first}\nrelation<|>Alice<|>Bob<|>reports to<|>Alice reports to Bob.\n<|COMPLETE|>`,
    });
  });

  test('makes at most max_gleaning extra passes, and none when gleaning is off', async () => {
    const adds = (name: string) => `entity<|>${name}<|>PERSON<|>New.\n<|COMPLETE|>`;
    const capped = scriptedLlm([first, adds('Carol'), adds('Dave'), adds('Erin')]);
    const result = await extractChunk(
      capped,
      { content: 'Alice, Bob, Carol, Dave and Erin met.' },
      { enableGleaning: true, maxGleaning: 2 },
    );
    expect(capped.tasks).toEqual(['extract', 'glean', 'glean']);
    expect(result.entities.map((e) => e.id)).toEqual(['ALICE', 'BOB', 'CAROL', 'DAVE']);

    const off = scriptedLlm([first, adds('Carol')]);
    await extractChunk(off, { content: 'Alice, Bob, Carol, Dave and Erin met.' }, { enableGleaning: false, maxGleaning: 3 });
    expect(off.tasks).toEqual(['extract']);
  });

  test('counts records dropped in every pass', async () => {
    const llm = scriptedLlm(['entity<|>Alice<|>PERSON<|>x\nentity<|>\n', 'relation<|>Alice\nentity<|>Bob<|>PERSON<|>y']);
    const result = await extractChunk(llm, { content: 'Alice met Bob.' }, { enableGleaning: true, maxGleaning: 1 });
    expect(result.dropped_records).toBe(2);
    expect(result.entities).toHaveLength(2);
  });
});

describe('extractWithCache', () => {
  const scope = { workspaceId: 'cache-test' };
  const answers = [
    'entity<|>Alice<|>PERSON<|>An engineer.\n<|COMPLETE|>',
    'relation<|>Alice<|>Bob<|>reports to<|>Alice reports to Bob.\n<|COMPLETE|>',
  ];

  test('keeps the answers once, in the response cache: the chunk entry holds the parsed records and the pass count', async () => {
    const kv = new MemoryKeyValueStore();
    const cache = new LlmCache();
    const llm = cache.wrap(scriptedLlm(answers), kv, scope);
    const chunk = { id: 'doc-chunk-0', content: 'Alice reports to Bob.' };
    const fresh = await extractWithCache(kv, scope, llm, chunk, { enableGleaning: true, maxGleaning: 1 });
    expect(fresh.llm_calls).toBe(2);

    const entry = await kv.get<CachedExtraction>(scope, EXTRACTION_NAMESPACE, chunk.id);
    expect(entry?.passes).toBe(2);
    expect(entry).not.toHaveProperty('raw_outputs');
    expect(JSON.stringify(entry)).not.toContain('<|COMPLETE|>');
    expect(entry?.entities.map((e) => e.id)).toEqual(['ALICE']);
    expect(entry?.relations.map((r) => r.id)).toEqual(['ALICE|BOB']);
    await cache.settle();
    expect(await kv.count(scope, LLM_CACHE_NAMESPACE)).toBe(2);
    expect(extractionMetadata(entry)).toMatchObject({ extraction_passes: 2, gleaning_passes: 1, entity_count: 1 });

    const again = await extractWithCache(kv, scope, llm, chunk, { enableGleaning: true, maxGleaning: 1 });
    expect(again).toMatchObject({ cached: true, llm_calls: 0 });
  });

  test('reads the pass count of entries written with their answers', () => {
    const legacy = { raw_outputs: answers, entities: [], relations: [] } as unknown as CachedExtraction;
    expect(extractionMetadata(legacy)).toMatchObject({ extraction_passes: 2, gleaning_passes: 1 });
  });
});
