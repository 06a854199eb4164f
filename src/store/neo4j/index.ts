import type { Scope } from '../../domain/types';
import type { Logger } from '../../logger';
import type { Stores, VectorStore } from '../ports';
import type { QdrantConfig } from '../../config/types';
import { QdrantVectorStore } from '../qdrant/vectors';
import { createNeo4jAccounts } from './accounts';
import { Neo4jAnalyticsStore } from './analytics';
import { Neo4jAnalystCypher } from './analyst-cypher';
import { Neo4jChunkStore } from './chunks';
import { Neo4jCommunityStore } from './communities';
import { Neo4jClient, type Neo4jSettings, scopeParams } from './client';
import { Neo4jConversationStore } from './conversations';
import { Neo4jCostStore } from './costs';
import { Neo4jDocumentStore } from './documents';
import { Neo4jGraphStore } from './graph';
import { Neo4jKeyValueStore } from './kv';
import { Neo4jLockStore } from './locks';
import { type SchemaState, applyMigrations, readSchema } from './migrations';
import { Neo4jRetrievalReads } from './retrieval';
import { checkNeo4j } from './startup';
import { Neo4jTaskStore } from './tasks';
import { count, num } from './values';
import { Neo4jVectorStore } from './vectors';

/** How often /health's schema figures are read again (in the background). */
const SCHEMA_REREAD_MS = 30_000;

export { Neo4jClient };
export type { Neo4jSettings };

/** Every label the store writes; dropping a workspace deletes its nodes label by label, in batches. */
const WORKSPACE_LABELS = [
  'UsageRecord',
  'CostBudget',
  'Message',
  'Conversation',
  'ConversationFolder',
  'Task',
  'KV',
  'Lock',
  'Community',
  'ChunkVector',
  'EntityVector',
  'RelationshipVector',
  'Chunk',
  'Entity',
  'Document',
];
const DROP_BATCH = 2_000;
/** Labels keyed by something other than `id` have a drop query of their own. */
const DROP_QUERIES: Record<string, string> = { KV: 'workspaces/drop-kv-batch', Lock: 'locks/drop-batch' };

export interface Neo4jStoresOptions {
  neo4j: Neo4jSettings;
  /** Embedding dimension: the vector indexes (Neo4j) or collections (Qdrant) made at start-up. */
  dimension: number;
  qdrant?: QdrantConfig | null;
  log: Logger;
}

/**
 * Persistent mode: every store in Neo4j (vectors in Qdrant when configured). Start-up checks the connection,
 * applies pending migrations and prepares the vector indexes; any failure throws one line saying what to fix.
 */
export async function createNeo4jStores(options: Neo4jStoresOptions): Promise<Stores> {
  const { log, dimension } = options;
  const db = new Neo4jClient(options.neo4j, (up, downForMs) =>
    up
      ? log.info({ down_for_ms: downForMs }, 'Neo4j answers again; storage calls resume')
      : log.warn({ uri: options.neo4j.uri }, 'Neo4j is unreachable; storage calls answer 503 until it is back'),
  );
  let qdrant: QdrantVectorStore | null = null;
  let vectors: VectorStore;
  try {
    await checkNeo4j(db);
    const applied = await applyMigrations(db, log);
    if (options.qdrant) {
      qdrant = QdrantVectorStore.fromConfig(options.qdrant);
      await qdrant.prepare(dimension);
      vectors = qdrant;
    } else {
      const native = new Neo4jVectorStore(db, dimension);
      await native.ensureIndexes();
      vectors = native;
    }
    log.info(
      { uri: options.neo4j.uri, migrations_applied_now: applied, vectors: qdrant ? 'qdrant' : 'neo4j' },
      `storage: Neo4j at ${options.neo4j.uri}${qdrant ? ` with vectors in Qdrant at ${options.qdrant?.urls.join(', ')}` : ''}`,
    );
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }

  let lastSchema: SchemaState = { latest_version: 0, migrations_applied: 0, last_applied_at: null };
  let schemaRead: Promise<void> | null = null;
  let schemaReadAt = 0;
  const costs = new Neo4jCostStore(db);
  const communities = new Neo4jCommunityStore(db);

  return {
    documents: new Neo4jDocumentStore(db),
    chunks: new Neo4jChunkStore(db),
    graph: new Neo4jGraphStore(db),
    vectors,
    tasks: new Neo4jTaskStore(db),
    conversations: new Neo4jConversationStore(db),
    kv: new Neo4jKeyValueStore(db),
    locks: new Neo4jLockStore(db),
    communities,
    analytics: new Neo4jAnalyticsStore(db),
    accounts: createNeo4jAccounts(db),
    costs,
    cypher: new Neo4jAnalystCypher(db),
    retrieval: new Neo4jRetrievalReads(db, vectors),
    async health() {
      const [graph, vector] = await Promise.all([db.ping(), qdrant ? qdrant.ping() : null]);
      return { kv_storage: graph, vector_storage: vector ?? graph, graph_storage: graph };
    },
    /**
     * The schema as last read: migrations run at start-up, so after the first read a probe answers at once and
     * the read is redone in the background now and then. The last read survives a database outage, so /health
     * still says what was applied.
     */
    async schema() {
      if (!schemaRead || Date.now() - schemaReadAt >= SCHEMA_REREAD_MS) {
        schemaReadAt = Date.now();
        const first = !schemaRead;
        schemaRead = readSchema(db).then(
          (state) => void (lastSchema = state),
          () => undefined,
        );
        if (first) await schemaRead;
      }
      return lastSchema;
    },
    async dropWorkspace(scope: Scope) {
      const params = { ...scopeParams(scope), batch: count(DROP_BATCH) };
      for (const label of WORKSPACE_LABELS) {
        for (;;) {
          const [row] = await db.write((tx) =>
            DROP_QUERIES[label] ? tx.run(DROP_QUERIES[label], params) : tx.runTemplate('workspaces/drop-batch', { LABEL: label }, params),
          );
          if (num(row?.deleted) < DROP_BATCH) break;
        }
      }
      await qdrant?.dropWorkspace(scope);
      costs.forget(scope);
      communities.forget(scope);
    },
    async close() {
      await db.close();
    },
  };
}
