import { createHash } from 'node:crypto';
import { fragmentKey } from '../../src/ingest/merge/record-state';

describe('fragmentKey', () => {
  // Merge states written by earlier versions hold these keys: the remembered function must give the same ones.
  const stored = (text: string) => createHash('sha256').update(text.toLowerCase()).digest('base64url').slice(0, 16);

  it('gives the key merge states store, the same when asked again and whatever the case', () => {
    const fragment = 'Alice leads the propulsion team at Acme.';
    expect(fragmentKey(fragment)).toBe(stored(fragment));
    expect(fragmentKey(fragment)).toBe(stored(fragment));
    expect(fragmentKey(fragment.toUpperCase())).toBe(stored(fragment));
    expect(fragmentKey('Bob joined Acme in 2020.')).not.toBe(fragmentKey(fragment));
  });

  it('keeps giving the right keys once the fragments it remembers are forgotten', () => {
    const fragments = Array.from({ length: 20_000 }, (_, i) => `Fragment number ${i} of a description that is long enough to count.`);
    for (const f of fragments) fragmentKey(f);
    for (const f of [fragments[0], fragments[10_000], fragments[19_999]]) expect(fragmentKey(f)).toBe(stored(f));
  });
});
