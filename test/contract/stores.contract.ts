import type { Scope } from '../../src/domain/types';
import type { Stores } from '../../src/store/ports';
import { makeChunk, makeConversation, makeDocument, makeEntity, makeMessage, makeRelationship, makeTask } from './fixtures';
import { type StoresCleanup, type StoresFactory, useStores } from './harness';

/** Writes one record of every kind, with the same ids whatever the workspace. */
async function populate(stores: Stores, scope: Scope): Promise<void> {
  await stores.documents.insert(scope, makeDocument({ id: 'doc-1', content_hash: 'sha256:same' }));
  await stores.chunks.upsertMany(scope, [makeChunk('doc-1', 0)]);
  await stores.graph.upsertEntities(scope, [makeEntity('ALICE'), makeEntity('BOB')]);
  await stores.graph.upsertRelationships(scope, [makeRelationship('ALICE', 'BOB')]);
  await stores.vectors.upsert(scope, 'chunk', [{ id: 'doc-1-chunk-0', vector: [1, 0, 0, 0], document_ids: ['doc-1'] }]);
  await stores.tasks.insert(scope, makeTask({ id: 'task-1', status: 'completed' }));
  await stores.conversations.create(scope, makeConversation({ id: 'conv-1' }));
  await stores.conversations.addMessage(scope, makeMessage('conv-1', { id: 'msg-1' }));
  await stores.kv.set(scope, 'cache', 'key-1', { cached: true });
}

/** What a workspace holds, port by port. */
async function observe(stores: Stores, scope: Scope) {
  const page = { limit: 10, offset: 0 };
  return {
    documents: (await stores.documents.list(scope, page)).total,
    byHash: (await stores.documents.findByHash(scope, 'sha256:same'))?.id ?? null,
    chunks: await stores.chunks.count(scope),
    entities: (await stores.graph.stats(scope)).total_nodes,
    relationships: (await stores.graph.stats(scope)).total_edges,
    vectors: await stores.vectors.count(scope, 'chunk'),
    hits: (await stores.vectors.search(scope, 'chunk', [1, 0, 0, 0], 5)).length,
    tasks: (await stores.tasks.list(scope, page)).total,
    conversations: (await stores.conversations.list(scope, page)).total,
    messages: (await stores.conversations.listMessages(scope, 'conv-1', page)).total,
    kv: await stores.kv.count(scope, 'cache'),
  };
}

const FULL = {
  documents: 1,
  byHash: 'doc-1',
  chunks: 1,
  entities: 2,
  relationships: 1,
  vectors: 1,
  hits: 1,
  tasks: 1,
  conversations: 1,
  messages: 1,
  kv: 1,
};
const EMPTY = {
  documents: 0,
  byHash: null,
  chunks: 0,
  entities: 0,
  relationships: 0,
  vectors: 0,
  hits: 0,
  tasks: 0,
  conversations: 0,
  messages: 0,
  kv: 0,
};

export function storesContract(name: string, makeStores: StoresFactory, cleanup?: StoresCleanup): void {
  describe(`${name}: Stores contract`, () => {
    const ctx = useStores(makeStores, cleanup);

    it('reports every component healthy', async () => {
      expect(await ctx.stores().health()).toEqual({ kv_storage: true, vector_storage: true, graph_storage: true });
    });

    it('reports its schema version and migrations', async () => {
      const schema = await ctx.stores().schema();
      expect(Number.isInteger(schema.latest_version) && schema.latest_version >= 0).toBe(true);
      expect(Number.isInteger(schema.migrations_applied) && schema.migrations_applied >= 0).toBe(true);
      expect(schema.last_applied_at === null || !Number.isNaN(Date.parse(schema.last_applied_at))).toBe(true);
    });

    it('dropWorkspace empties every store of that workspace and leaves the others intact', async () => {
      const [a, b] = [ctx.scope(), ctx.scope()];
      await populate(ctx.stores(), a);
      await populate(ctx.stores(), b);
      expect(await observe(ctx.stores(), a)).toEqual(FULL);
      await ctx.stores().dropWorkspace(a);
      expect(await observe(ctx.stores(), a)).toEqual(EMPTY);
      expect(await ctx.stores().vectors.bytes(a)).toBe(0);
      expect(await observe(ctx.stores(), b)).toEqual(FULL);
      expect(await ctx.stores().vectors.bytes(b)).toBe(16);
      // The dropped workspace is usable again.
      await populate(ctx.stores(), a);
      expect(await observe(ctx.stores(), a)).toEqual(FULL);
    });

    it('keeps tenants apart: one workspace id under two tenants (or none) is three workspaces', async () => {
      const shared = `ws-shared-${Date.now()}-${Math.random().toString(36).slice(2)}`;
      const [t1, t2, plain] = [
        ctx.scope({ tenantId: `t1-${shared}`, workspaceId: shared }),
        ctx.scope({ tenantId: `t2-${shared}`, workspaceId: shared }),
        ctx.scope({ workspaceId: shared }),
      ];
      await populate(ctx.stores(), t1);
      expect(await observe(ctx.stores(), t2)).toEqual(EMPTY);
      expect(await observe(ctx.stores(), plain)).toEqual(EMPTY);
      await populate(ctx.stores(), t2);
      await ctx.stores().dropWorkspace(t2);
      await ctx.stores().dropWorkspace(plain);
      expect(await observe(ctx.stores(), t1)).toEqual(FULL);
    });
  });
}
