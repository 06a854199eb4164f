import { indexEntities, lookupName, NAME_INDEX_NAMESPACE } from '../../src/graph/resolution/name-index';
import { createMemoryStores } from '../../src/store/memory';
import { recordingLocks } from './recording-locks';

/** The entity name index of resolution: what it writes, and when it writes nothing. */

function setup() {
  const stores = createMemoryStores();
  const scope = { workspaceId: 'ws-names' };
  const { locks, held } = recordingLocks();
  const writes: string[] = [];
  const setMany = stores.kv.setMany.bind(stores.kv);
  stores.kv.setMany = (s, namespace, entries) => {
    writes.push(...entries.map(([key]) => key));
    return setMany(s, namespace, entries);
  };
  return { kv: stores.kv, scope, locks, held, writes };
}

describe('the entity name index', () => {
  test('finds a name by its words, initials and prefix', async () => {
    const { kv, scope, locks } = setup();
    await indexEntities(kv, locks, scope, [
      { id: 'INTERNATIONAL_BUSINESS_MACHINES', name: 'International Business Machines' },
      { id: 'ACME', name: 'Acme' },
    ]);
    expect(await lookupName(kv, scope, 'IBM', 5)).toEqual(['INTERNATIONAL_BUSINESS_MACHINES']);
    expect(await lookupName(kv, scope, 'Business Machines', 5)).toEqual(['INTERNATIONAL_BUSINESS_MACHINES']);
    expect(await lookupName(kv, scope, 'Acme Corp', 5)).toContain('ACME');
  });

  test('finds a misspelling in the first four letters by its consonants in order', async () => {
    const { kv, scope, locks } = setup();
    await indexEntities(kv, locks, scope, [
      { id: 'GLOBEX', name: 'Globex Corporation' },
      { id: 'KUBERNETES', name: 'Kubernetes' },
    ]);
    // No word, prefix or normalised name in common: "glbo" against "glob", "kubr" against "kube".
    expect(await lookupName(kv, scope, 'Glboex Corp.', 5)).toEqual(['GLOBEX']);
    expect(await lookupName(kv, scope, 'Kubrenetes', 5)).toEqual(['KUBERNETES']);
    // A candidate only: resolution's name similarity decides ("Gelbux" is no misspelling of Globex to it).
    expect(await lookupName(kv, scope, 'Gelbux', 5)).toEqual(['GLOBEX']);
    expect(await lookupName(kv, scope, 'Galaxy', 5)).toEqual([]);
  });

  test('names indexed already take no lock and write nothing', async () => {
    const { kv, scope, locks, held, writes } = setup();
    const entities = [
      { id: 'ALICE_SMITH', name: 'Alice Smith' },
      { id: 'ACME', name: 'Acme' },
    ];
    await indexEntities(kv, locks, scope, entities);
    expect(held).toHaveLength(1);
    const written = writes.length;
    await indexEntities(kv, locks, scope, [...entities].reverse());
    expect(held).toHaveLength(1);
    expect(writes).toHaveLength(written);
    // A new name sharing a word locks and writes only the terms that change.
    await indexEntities(kv, locks, scope, [...entities, { id: 'BOB_SMITH', name: 'Bob Smith' }]);
    expect(held[1]).toEqual(expect.arrayContaining(['name-index:w:smith', 'name-index:k:bob smith']));
    expect(held[1]).not.toContain('name-index:k:alice smith');
    expect(await kv.get(scope, NAME_INDEX_NAMESPACE, 'w:smith')).toEqual(['ALICE_SMITH', 'BOB_SMITH']);
  });

  test('a full term keeps the names documents still name: one among the first to go moves to the end', async () => {
    const { kv, scope, locks, held } = setup();
    const people = Array.from({ length: 64 }, (_, i) => ({ id: `P${i}_SMITH`, name: `P${i} Smith` }));
    for (const p of people) await indexEntities(kv, locks, scope, [p]);
    const list = async () => (await kv.get<string[]>(scope, NAME_INDEX_NAMESPACE, 'w:smith')) ?? [];
    expect(await list()).toHaveLength(64);

    const locked = held.length;
    await indexEntities(kv, locks, scope, [people[40]]);
    expect(held).toHaveLength(locked);
    await indexEntities(kv, locks, scope, [people[3]]);
    expect((await list()).at(-1)).toBe('P3_SMITH');
    await indexEntities(kv, locks, scope, [{ id: 'NEW_SMITH', name: 'New Smith' }]);
    const after = await list();
    expect(after).toHaveLength(64);
    expect(after).not.toContain('P0_SMITH');
    expect(after).toContain('P3_SMITH');
  });
});
