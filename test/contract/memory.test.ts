import { createMemoryStores } from '../../src/store/memory';
import { makeDocument } from './fixtures';
import { allStoreContracts } from './index';

allStoreContracts('memory', async () => createMemoryStores());

describe('memory stores: embedded specifics', () => {
  it('reports no schema: nothing to migrate in memory', async () => {
    const stores = createMemoryStores();
    expect(await stores.schema()).toEqual({ latest_version: 0, migrations_applied: 0, last_applied_at: null });
  });

  it('releases everything on close and reports the components down', async () => {
    const stores = createMemoryStores();
    const scope = { workspaceId: 'w' };
    const doc = makeDocument();
    await stores.documents.insert(scope, doc);
    await stores.close();
    expect(await stores.documents.get(scope, doc.id)).toBeNull();
    expect(await stores.health()).toEqual({ kv_storage: false, vector_storage: false, graph_storage: false });
  });
});
