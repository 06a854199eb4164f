import { extractChunk } from '../../src/ingest/extract/extract';
import { GroundingText, groundingForm, groundRecords, isPlaceholder } from '../../src/ingest/extract/grounding';
import { parseExtraction } from '../../src/ingest/extract/parser';
import { MockLlm } from '../../src/llm/mock';
import type { DropCounts } from '../../src/records/extractions';

describe('groundingForm', () => {
  test('folds case, diacritics, punctuation and whitespace; joins single letters', () => {
    expect(groundingForm('  São   Paulo’s  ')).toBe('sao paulo s');
    expect(groundingForm('U.S.A.')).toBe('usa');
    expect(groundingForm('Ångström-Lab, Inc.')).toBe('angstrom lab inc');
  });
});

describe('GroundingText.names', () => {
  const text = new GroundingText(
    "Marie Skłodowska-Curie's lab at the École Normale hired staff from the U.S. and the World Health Organization. The Beatles played.",
  );
  test.each([
    ['Marie Skłodowska-Curie', true],
    ['marie sklodowska curie', true],
    ['Ecole Normale', true],
    ['US', true],
    ['WHO', true],
    ['World Health Organization (WHO)', true],
    ['Beatles', true],
    ['The Beatles', true],
    ['Skłodowska', true],
    ['Pierre Curie', false],
    ['Normale Ecole', false],
    ['Marie Curie', false],
    ['NASA', false],
  ])('%s -> %s', (name, expected) => {
    expect(text.names(name)).toBe(expected);
  });

  test('a word is not a part of another word', () => {
    expect(new GroundingText('Parisian cafés').names('Paris')).toBe(false);
  });
});

describe('isPlaceholder', () => {
  test.each([
    ['NAME', true],
    ['SOURCE', true],
    ['<entity_name>', true],
    ['{name}', true],
    ['Target', false],
    ['Source Code', false],
    ['Alice', false],
  ])('%s -> %s', (name, expected) => expect(isPlaceholder(name)).toBe(expected));
});

describe('groundRecords', () => {
  test('keeps what the text names and counts the rest by reason', () => {
    const parsed = parseExtraction(
      [
        'entity<|>NAME<|>TYPE<|>DESCRIPTION',
        'relation<|>SOURCE<|>TARGET<|>KEYWORDS<|>DESCRIPTION',
        'entity<|>Marie Curie<|>PERSON<|>Copied from the example.',
        'entity<|>Alice<|>PERSON<|>In the text.',
        'entity<|>Bob<|>PERSON<|>In the text.',
        'entity<|>Zed<|>PERSON<|>Invented.',
        'relation<|>Alice<|>Bob<|>knows<|>Grounded.',
        'relation<|>Alice<|>Zed<|>knows<|>One end invented.',
      ].join('\n'),
    );
    const drops: DropCounts = {};
    const kept = groundRecords(parsed, new GroundingText('Alice knows Bob.'), drops);
    expect(kept.entities.map((e) => e.name)).toEqual(['Alice', 'Bob']);
    expect(kept.relations.map((r) => r.id)).toEqual(['ALICE|BOB']);
    expect(drops).toEqual({ placeholder: 2, example: 1, not_in_text: 2 });
  });

  test('a name of the example is kept when the text names it', () => {
    const parsed = parseExtraction('entity<|>Marie Curie<|>PERSON<|>A physicist.');
    const drops: DropCounts = {};
    expect(groundRecords(parsed, new GroundingText('Marie Curie was a physicist.'), drops).entities).toHaveLength(1);
    expect(drops).toEqual({});
  });
});

describe('parseExtraction: what models write instead of records', () => {
  const records = ['entity<|>Alice<|>PERSON<|>An engineer.', 'relation<|>Alice<|>Bob<|>knows<|>They met.', '<|COMPLETE|>'].join('\n');

  test('a reasoning block is ignored, records inside it too', () => {
    const parsed = parseExtraction(`<think>\nentity<|>Hidden<|>CONCEPT<|>no\n</think>\n${records}`);
    expect(parsed.entities.map((e) => e.name)).toEqual(['Alice']);
    expect(parsed.completed).toBe(true);
  });

  test('fenced records, and bars for delimiters, are read', () => {
    expect(parseExtraction('```text\n' + records + '\n```').entities).toHaveLength(1);
    const barred = parseExtraction('entity | Alice | PERSON | An engineer.\nrelation | Alice | Bob | knows | They met.');
    expect(barred.entities.map((e) => e.name)).toEqual(['Alice']);
    expect(barred.relations).toHaveLength(1);
    expect(barred.completed).toBe(false);
  });

  test('JSON written instead of records is read', () => {
    const parsed = parseExtraction(
      '```json\n' +
        JSON.stringify({
          entities: [{ name: 'Alice', type: 'person', description: 'An engineer.' }, { name: '' }],
          relationships: [{ source: 'Alice', target: 'Bob', keywords: ['knows'], description: 'They met.' }],
        }) +
        '\n```',
    );
    expect(parsed.entities.map((e) => [e.name, e.type])).toEqual([['Alice', 'PERSON']]);
    expect(parsed.relations.map((r) => r.keywords)).toEqual([['knows']]);
    expect(parsed.dropped_by_reason).toEqual({ malformed: 1 });
  });

  test('prose has no records and no completion marker', () => {
    const parsed = parseExtraction('The text is about two people who met.');
    expect(parsed).toMatchObject({ records: 0, dropped: 0, completed: false, entities: [] });
  });
});

describe('extraction health with hostile models (the mock, by model name)', () => {
  const chunk = { content: 'Alice Smith works for Acme Corporation in Berlin. Alice Smith met Bob Jones in Paris.' };
  const run = (model: string) => extractChunk(new MockLlm('mock', model), chunk, { enableGleaning: false, maxGleaning: 0 });

  test('a well-behaved model: records kept, none dropped, the marker seen', async () => {
    const good = await run('mock-llm');
    expect(good.entities.length).toBeGreaterThan(2);
    expect(good.health).toMatchObject({ dropped: {}, finish_reason: 'stop', completion_marker: true, looped: false, prompt_version: 2 });
  });

  test('echo: only placeholders, all dropped', async () => {
    const echoed = await run('mock-echo');
    expect(echoed.entities).toEqual([]);
    expect(echoed.relations).toEqual([]);
    expect(echoed.health.dropped).toEqual({ placeholder: 2 });
  });

  test('copy-example: the example dropped', async () => {
    const copied = await run('mock-copy-example');
    expect(copied.entities).toEqual([]);
    expect(copied.health.dropped).toEqual({ example: 5 });
  });

  test('loop: cut at the limit, repeated records stored once', async () => {
    const looped = await run('mock-loop');
    expect(looped.health).toMatchObject({ finish_reason: 'length', looped: true, completion_marker: false });
    expect(looped.entities).toHaveLength(1);
  });

  test('think, fenced, delimiters and json: the same records as the well-behaved model', async () => {
    const good = await run('mock-llm');
    for (const model of ['mock-think', 'mock-fenced', 'mock-delimiters', 'mock-json']) {
      const got = await run(model);
      expect([model, got.entities.map((e) => e.id).sort()]).toEqual([model, good.entities.map((e) => e.id).sort()]);
      expect(got.entities.some((e) => e.name === 'Inner Thought')).toBe(false);
    }
  });

  test('ungrounded: the invented names dropped, the others kept', async () => {
    const got = await run('mock-ungrounded');
    expect(got.entities.map((e) => e.name)).not.toContain('Captain Nemo');
    expect(got.health.dropped.not_in_text).toBeGreaterThanOrEqual(4);
    expect(got.entities.length).toBeGreaterThan(2);
  });

  test('refuse, empty and prose: nothing read, no marker', async () => {
    for (const model of ['mock-refuse', 'mock-empty', 'mock-prose']) {
      const got = await run(model);
      expect(got.entities).toEqual([]);
      expect(got.health.completion_marker).toBe(false);
    }
    expect((await run('mock-empty')).health.empty_outputs).toBe(1);
  });
});
