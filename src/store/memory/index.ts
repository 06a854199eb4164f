import { availableParallelism } from 'node:os';
import type { Scope } from '../../domain/types';
import type { Stores } from '../ports';
import { createMemoryAccounts } from './accounts';
import { MemoryAnalyticsStore } from './analytics';
import { MemoryChunkStore } from './chunks';
import { MemoryCommunityStore } from './communities';
import { MemoryConversationStore } from './conversations';
import { MemoryCostStore } from './costs';
import { MemoryDocumentStore } from './documents';
import { MemoryGraphStore } from './graph';
import { MemoryKeyValueStore } from './kv';
import { MemoryLockStore } from './locks';
import { MemoryTaskStore } from './tasks';
import { MemoryVectorStore } from './vectors';

export { MemoryChunkStore, MemoryConversationStore, MemoryDocumentStore, MemoryGraphStore };
export { MemoryKeyValueStore, MemoryLockStore, MemoryTaskStore, MemoryVectorStore };

/**
 * Embedded mode: every store in process memory, scoped by tenant and workspace like the persistent ones.
 * Nothing survives a restart; there is no schema, hence no migrations.
 */
export function createMemoryStores(): Stores {
  const documents = new MemoryDocumentStore();
  const chunks = new MemoryChunkStore();
  const graph = new MemoryGraphStore();
  // With a second core, the scans of large exact searches run beside the event loop, on two threads.
  const vectors = new MemoryVectorStore({ searchThreads: availableParallelism() > 1 ? 2 : 0 });
  const tasks = new MemoryTaskStore();
  const conversations = new MemoryConversationStore();
  const kv = new MemoryKeyValueStore();
  const locks = new MemoryLockStore();
  const communities = new MemoryCommunityStore();
  const analytics = new MemoryAnalyticsStore(graph);
  const accounts = createMemoryAccounts();
  const costs = new MemoryCostStore();
  const all = [documents, chunks, graph, vectors, tasks, conversations, kv, locks, costs, communities];
  let open = true;

  return {
    documents,
    chunks,
    graph,
    vectors,
    tasks,
    conversations,
    kv,
    locks,
    communities,
    analytics,
    accounts,
    costs,
    async health() {
      return { kv_storage: open, vector_storage: open, graph_storage: open };
    },
    async schema() {
      return { latest_version: 0, migrations_applied: 0, last_applied_at: null };
    },
    async dropWorkspace(scope: Scope) {
      for (const store of all) store.dropWorkspace(scope);
    },
    /** Releases the data; health reports the stores down afterwards. */
    async close() {
      open = false;
      for (const store of all) store.clear();
      accounts.clear();
      await vectors.close();
    },
  };
}
