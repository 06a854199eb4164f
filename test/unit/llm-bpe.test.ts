import { getEncoding } from 'js-tiktoken';
import { tokenEncoder } from '../../src/llm/tokens';

const reference = getEncoding('cl100k_base');

/** Texts that stress byte-pair encoding: long words, digits, accents, CJK, emoji, odd spacing, special-token text. */
const TEXTS = [
  'Alice Johnson works with Bob Smith at Acme Corporation in Berlin.',
  'Supercalifragilisticexpialidocious antidisestablishmentarianism 1234567890 3.14159',
  'Skłodowska-Curie, Düsseldorf, Graubünden, naïve café — “quotes” and ‘apostrophes’',
  '東京は日本の首都です。北京是中国的首都。서울은 한국의 수도입니다.',
  'emoji 👩‍🔬🚀🇩🇪 and symbols ∑∫√ ≠ ≤ ≥',
  '  leading spaces\r\n\r\nCRLF lines\ttabs\n\n\n  trailing   ',
  'text with <|endoftext|> and <|fim_prefix|> inside',
  '```ts\nconst x: Map<string, number[]> = new Map();\n```',
];

describe('compact byte-pair encoding', () => {
  it.each(TEXTS)('encodes as js-tiktoken cl100k does and decodes back: %s', (text) => {
    const enc = tokenEncoder();
    const tokens = enc.encode(text);
    expect(tokens).toEqual(reference.encode(text, [], []));
    expect(enc.decode(tokens)).toBe(text);
  });
});
