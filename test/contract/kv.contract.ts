import { type StoresCleanup, type StoresFactory, useStores } from './harness';

export function keyValueStoreContract(name: string, makeStores: StoresFactory, cleanup?: StoresCleanup): void {
  describe(`${name}: KeyValueStore contract`, () => {
    const ctx = useStores(makeStores, cleanup);
    const kv = () => ctx.stores().kv;

    it('stores JSON values by namespace and key, null when absent, last write wins', async () => {
      const scope = ctx.scope();
      await kv().set(scope, 'cache', 'k1', { records: [1, 2], text: 'a' });
      await kv().set(scope, 'cache', 'k2', 'plain');
      await kv().set(scope, 'cache', 'k2', 42);
      expect(await kv().get(scope, 'cache', 'k1')).toEqual({ records: [1, 2], text: 'a' });
      expect(await kv().get<number>(scope, 'cache', 'k2')).toBe(42);
      expect(await kv().get(scope, 'cache', 'k3')).toBeNull();
      expect(await kv().get(scope, 'settings', 'k1')).toBeNull();
    });

    it('hands out copies: mutating a value set or got never changes the stored one', async () => {
      const scope = ctx.scope();
      const value = { list: [1, 2], nested: { flag: true } };
      await kv().set(scope, 'cache', 'k', value);
      value.list.push(3);
      (await kv().get<typeof value>(scope, 'cache', 'k'))!.nested.flag = false;
      (await kv().getMany<typeof value>(scope, 'cache', ['k'])).get('k')!.list.length = 0;
      expect(await kv().get(scope, 'cache', 'k')).toEqual({ list: [1, 2], nested: { flag: true } });
    });

    it('setMany writes every entry at once, replacing values and keeping the last of a repeated key', async () => {
      const scope = ctx.scope();
      await kv().set(scope, 'cache', 'a', 'old');
      await kv().setMany(scope, 'cache', [
        ['a', { n: 1 }],
        ['b', [2]],
        ['c', 'x'],
        ['c', 'y'],
      ]);
      await kv().setMany(scope, 'cache', []);
      expect(await kv().getMany(scope, 'cache', ['a', 'b', 'c'])).toEqual(
        new Map<string, unknown>([
          ['a', { n: 1 }],
          ['b', [2]],
          ['c', 'y'],
        ]),
      );
      expect(await kv().count(scope, 'cache')).toBe(3);
      expect(await kv().get(scope, 'other', 'a')).toBeNull();
    });

    it('getMany returns only the keys that hold a value', async () => {
      const scope = ctx.scope();
      await kv().set(scope, 'cache', 'a', 1);
      await kv().set(scope, 'cache', 'b', 2);
      await kv().set(scope, 'other', 'c', 3);
      expect(await kv().getMany(scope, 'cache', ['b', 'c', 'a', 'z'])).toEqual(
        new Map([
          ['b', 2],
          ['a', 1],
        ]),
      );
      expect(await kv().getMany(scope, 'cache', [])).toEqual(new Map());
    });

    it('calls made at once each get their own answer, and writes of one key keep the last one called', async () => {
      const [a, b] = [ctx.scope(), ctx.scope()];
      const keys = Array.from({ length: 40 }, (_, i) => `k${i}`);
      await Promise.all([
        ...keys.map((key, i) => kv().set(a, 'cache', key, { i })),
        ...keys.map((key, i) => kv().set(b, 'cache', key, -i)),
        kv().set(a, 'other', 'k0', 'other namespace'),
      ]);
      const [first, second, third] = [
        kv().set(a, 'cache', 'k1', 'first'),
        kv().set(a, 'cache', 'k1', 'second'),
        kv().set(a, 'cache', 'k1', 'third'),
      ];
      await Promise.all([first, second, third]);
      const reads = await Promise.all([
        ...keys.map((key) => kv().get(a, 'cache', key)),
        kv().getMany(b, 'cache', ['k3', 'missing', 'k2']),
        kv().get(a, 'other', 'k0'),
        kv().getMany(a, 'cache', []),
      ]);
      expect(reads.slice(0, keys.length)).toEqual(keys.map((_, i) => (i === 1 ? 'third' : { i })));
      expect(reads[keys.length]).toEqual(
        new Map([
          ['k3', -3],
          ['k2', -2],
        ]),
      );
      expect(reads.slice(keys.length + 1)).toEqual(['other namespace', new Map()]);
      expect(await kv().count(a, 'cache')).toBe(keys.length);
    });

    it('counts and deletes per namespace', async () => {
      const scope = ctx.scope();
      for (const key of ['a', 'b', 'c']) await kv().set(scope, 'cache', key, key);
      await kv().set(scope, 'settings', 'a', true);
      expect(await kv().count(scope, 'cache')).toBe(3);
      expect(await kv().count(scope, 'settings')).toBe(1);
      expect(await kv().count(scope, 'empty')).toBe(0);
      await kv().delete(scope, 'cache', ['a', 'c', 'missing']);
      expect(await kv().count(scope, 'cache')).toBe(1);
      expect(await kv().get(scope, 'cache', 'a')).toBeNull();
      expect(await kv().get(scope, 'settings', 'a')).toBe(true);
    });

    it('keeps workspaces apart: another workspace neither sees nor deletes the values', async () => {
      const [a, b] = [ctx.scope(), ctx.scope()];
      await kv().set(a, 'cache', 'k', 'value of a');
      expect(await kv().get(b, 'cache', 'k')).toBeNull();
      expect(await kv().getMany(b, 'cache', ['k'])).toEqual(new Map());
      expect(await kv().count(b, 'cache')).toBe(0);
      await kv().delete(b, 'cache', ['k']);
      await kv().set(b, 'cache', 'k', 'value of b');
      expect(await kv().get(a, 'cache', 'k')).toBe('value of a');
      expect(await kv().get(b, 'cache', 'k')).toBe('value of b');
    });
  });
}
