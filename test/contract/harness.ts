import { randomUUID } from 'node:crypto';
import type { Scope } from '../../src/domain/types';
import type { Stores } from '../../src/store/ports';

export type StoresFactory = () => Promise<Stores>;
/** Releases what the factory made; defaults to `stores.close()`. */
export type StoresCleanup = (stores: Stores) => Promise<void>;

export interface ContractContext {
  /** The stores under test (one instance per suite, shared by its tests). */
  stores(): Stores;
  /** A fresh workspace of its own, dropped after the test: suites can share one database. */
  scope(options?: { tenantId?: string; workspaceId?: string }): Scope;
}

/** Registers the suite's lifecycle hooks and returns accessors for use inside tests. */
export function useStores(makeStores: StoresFactory, cleanup?: StoresCleanup): ContractContext {
  let stores: Stores | undefined;
  let used: Scope[] = [];

  beforeAll(async () => {
    stores = await makeStores();
  });
  afterEach(async () => {
    const scopes = used;
    used = [];
    for (const scope of scopes) await stores?.dropWorkspace(scope);
  });
  afterAll(async () => {
    if (!stores) return;
    await (cleanup ? cleanup(stores) : stores.close());
  });

  return {
    stores() {
      if (!stores) throw new Error('stores are not ready: call inside a test');
      return stores;
    },
    scope(options = {}) {
      const scope: Scope = { workspaceId: options.workspaceId ?? `ws-${randomUUID()}` };
      if (options.tenantId !== undefined) scope.tenantId = options.tenantId;
      used.push(scope);
      return scope;
    },
  };
}
