export type { CostStore, TimeRange, UsageTotals } from './cost-port';
export type {
  AroundOptions,
  ChunkHits,
  DocumentTitle,
  EntityHits,
  RelationshipHits,
  RetrievalReads,
  ScoredRecord,
  SearchOptions,
} from './retrieval-port';
export { emptyTotals, totalsOf } from './cost-port';
export type { AccountStores, FlatRecord, RecordCollection } from './account-port';
export { ACCOUNT_COLLECTIONS, buildAccountStores, matchesRecord } from './account-port';
export type {
  AnalystCypher,
  AnalyticsStore,
  CypherNode,
  CypherPath,
  CypherRelationship,
  CypherResult,
  GraphSnapshot,
  NeighbourQuery,
} from './analytics-port';
import type { DocumentTitle, RetrievalReads } from './retrieval-port';
import type {
  ChunkRecord,
  ConversationRecord,
  DocumentRecord,
  DocumentStatus,
  EntityRecord,
  FolderRecord,
  MessageRecord,
  Page,
  RelationshipRecord,
  Scope,
  TaskRecord,
  TaskStatus,
  VectorHit,
  VectorKind,
  VectorPoint,
} from '../domain/types';
import type { AccountStores } from './account-port';
import type { AnalystCypher, AnalyticsStore } from './analytics-port';
import type { CostStore } from './cost-port';
import type { CommunityRecord } from '../domain/communities';

/**
 * Store ports. Every call takes a Scope: isolation between workspaces is enforced here, never only in routes.
 * Implementations: memory/ (embedded mode) and neo4j/ (+ qdrant/ for vectors). One contract suite covers all.
 */

export interface DocumentQuery {
  limit: number;
  offset: number;
  status?: DocumentStatus;
  /** Inclusive ISO dates (YYYY-MM-DD or full timestamps). */
  dateFrom?: string;
  dateTo?: string;
  /** Lower-cased title terms, OR-ed. */
  titleTerms?: string[];
}

export interface DocumentStore {
  insert(scope: Scope, doc: DocumentRecord): Promise<void>;
  update(scope: Scope, id: string, patch: Partial<DocumentRecord>): Promise<DocumentRecord | null>;
  /** Sets the entity and relationship counts of the documents that exist among those given; nothing is read back. */
  setGraphCounts(scope: Scope, counts: Map<string, DocumentGraphCounts>): Promise<void>;
  get(scope: Scope, id: string): Promise<DocumentRecord | null>;
  /** Titles and file paths of the documents among `ids` that exist (without their content): what sources cite. */
  titles(scope: Scope, ids: string[]): Promise<Map<string, DocumentTitle>>;
  findByHash(scope: Scope, contentHash: string): Promise<DocumentRecord | null>;
  list(scope: Scope, query: DocumentQuery): Promise<Page<DocumentRecord>>;
  /** Ids of documents matching a filter (no pagination); used by retrieval document filters. */
  listIds(scope: Scope, query: Omit<DocumentQuery, 'limit' | 'offset'>): Promise<string[]>;
  countByStatus(scope: Scope): Promise<Record<DocumentStatus, number>>;
  delete(scope: Scope, id: string): Promise<boolean>;
}

export interface ChunkStore {
  upsertMany(scope: Scope, chunks: ChunkRecord[]): Promise<void>;
  get(scope: Scope, id: string): Promise<ChunkRecord | null>;
  getMany(scope: Scope, ids: string[]): Promise<ChunkRecord[]>;
  /** What the chunks among `ids` that exist name, in the order asked for: getMany without their text. */
  linksOf(scope: Scope, ids: string[]): Promise<ChunkLinks[]>;
  /** Replaces what existing chunks name (their entity and relationship ids), nothing else of them; unknown ids are skipped. */
  setLinks(scope: Scope, links: ChunkLinks[]): Promise<void>;
  listByDocument(scope: Scope, documentId: string): Promise<ChunkRecord[]>;
  /** Deletes the document's chunks but those in `keep` (none by default); the number deleted. */
  deleteByDocument(scope: Scope, documentId: string, keep?: readonly string[]): Promise<number>;
  count(scope: Scope): Promise<number>;
  /** Every chunk of the workspace by id, with its document and whether it names any record (integrity checks). */
  refs(scope: Scope): Promise<ChunkRef[]>;
}

export type ChunkLinks = Pick<ChunkRecord, 'id' | 'document_id' | 'entity_ids' | 'relationship_ids'>;

export interface ChunkRef {
  id: string;
  document_id: string;
  /** Whether the chunk lists an entity or relationship it names. */
  linked: boolean;
}

export interface EntityQuery {
  limit: number;
  offset: number;
  type?: string;
  /** Case-insensitive substring of the name or id. */
  search?: string;
}

export interface RelationshipQuery {
  limit: number;
  offset: number;
  type?: string;
}

export interface GraphStats {
  total_nodes: number;
  total_edges: number;
  node_types: Record<string, number>;
  edge_types: Record<string, number>;
}

/** How many of a record's latest chunk and document ids a read keeps. */
export interface SourceBounds {
  chunks: number;
  documents: number;
}

export interface DocumentGraphCounts {
  entities: number;
  relationships: number;
}

export interface GraphStore {
  getEntity(scope: Scope, id: string): Promise<EntityRecord | null>;
  getEntities(scope: Scope, ids: string[]): Promise<EntityRecord[]>;
  upsertEntities(scope: Scope, entities: EntityRecord[]): Promise<void>;
  deleteEntities(scope: Scope, ids: string[]): Promise<void>;
  getRelationships(scope: Scope, ids: string[]): Promise<RelationshipRecord[]>;
  upsertRelationships(scope: Scope, relationships: RelationshipRecord[]): Promise<void>;
  deleteRelationships(scope: Scope, ids: string[]): Promise<void>;
  /** Every relationship touching any of the given entities. */
  relationshipsOf(scope: Scope, entityIds: string[]): Promise<RelationshipRecord[]>;
  /**
   * Optional reads for retrieval (src/store/retrieval-reads.ts), for a store that can copy a record with only its
   * latest sources in the time of those bounds: `getEntities` and `getRelationships` with each record's latest
   * `bounds.chunks` chunk ids and `bounds.documents` document ids, and the relationships touching the entities, so
   * bounded, in any order (with `keep`, at least those ranking within the first `keep` as `AroundOptions.keep`
   * says). A store without them is read through the calls above.
   */
  entitiesWithin?(scope: Scope, ids: string[], bounds: SourceBounds): Promise<EntityRecord[]>;
  relationshipsWithin?(scope: Scope, ids: string[], bounds: SourceBounds): Promise<RelationshipRecord[]>;
  relationshipsAround?(scope: Scope, entityIds: string[], bounds: SourceBounds, keep?: number): Promise<RelationshipRecord[]>;
  /** Entities and relationships that list the document among their sources. */
  entitiesOfDocument(scope: Scope, documentId: string): Promise<EntityRecord[]>;
  relationshipsOfDocument(scope: Scope, documentId: string): Promise<RelationshipRecord[]>;
  /** How many of each entitiesOfDocument and relationshipsOfDocument would return, per document asked for. */
  countsOfDocuments(scope: Scope, documentIds: string[]): Promise<Map<string, DocumentGraphCounts>>;
  listEntities(scope: Scope, query: EntityQuery): Promise<Page<EntityRecord>>;
  listRelationships(scope: Scope, query: RelationshipQuery): Promise<Page<RelationshipRecord>>;
  /** Degree over the whole workspace graph. */
  degrees(scope: Scope, ids: string[]): Promise<Map<string, number>>;
  /** Breadth-first from a node, nearest first, at most maxNodes node ids (start included). */
  bfs(scope: Scope, startId: string, depth: number, maxNodes: number): Promise<{ ids: string[]; truncated: boolean }>;
  /** Ids of the most connected nodes. */
  topByDegree(scope: Scope, limit: number): Promise<string[]>;
  /** Relationships whose both endpoints are in the set. */
  relationshipsAmong(scope: Scope, ids: string[]): Promise<RelationshipRecord[]>;
  stats(scope: Scope): Promise<GraphStats>;
}

/** One entry of a change feed: an id ordered within its topic, and what was appended. */
export interface FeedEntry {
  id: string;
  payload: unknown;
}

/**
 * An ordered, bounded log per topic (a workspace's graph changes) that every instance appends to and reads from:
 * in memory for one process, a Redis stream per topic when several instances share the data. Ids compare with
 * `compareFeedIds`; the newest `window` entries of a topic are kept.
 */
export interface ChangeFeed {
  /** Appends and answers the entry's id. */
  append(topic: string, payload: unknown): Promise<string>;
  /**
   * Entries after `afterId`, oldest first, at most `limit`. `gap` is true when `afterId` is no longer in the
   * window (entries after it were trimmed); the id `0-0` reads from the oldest entry kept.
   */
  read(topic: string, afterId: string, limit: number): Promise<{ entries: FeedEntry[]; gap: boolean }>;
  /** The newest id of the topic (`0-0` when empty). */
  head(topic: string): Promise<string>;
  /** Called with a topic whenever any instance appended to it. */
  watch(listener: (topic: string) => void): () => void;
  close(): Promise<void>;
}

export interface VectorFilter {
  documentIds?: string[];
  ids?: string[];
}

export interface VectorStore {
  upsert(scope: Scope, kind: VectorKind, points: VectorPoint[]): Promise<void>;
  /**
   * Cosine similarity, best first. `documentIds` restricts hits to points of those documents, `ids` to those
   * points (scoring known candidates against a query).
   */
  search(scope: Scope, kind: VectorKind, vector: number[], topK: number, filter?: VectorFilter): Promise<VectorHit[]>;
  delete(scope: Scope, kind: VectorKind, ids: string[]): Promise<void>;
  /**
   * The stored vectors of the records that have one, by record id (as stored: a store may keep them normalised,
   * which cosine similarity does not see). For carrying a record's vector to the id it is renamed to.
   */
  vectorsOf(scope: Scope, kind: VectorKind, ids: string[]): Promise<Map<string, number[]>>;
  count(scope: Scope, kind: VectorKind): Promise<number>;
  /** The record ids of every point of a kind in the workspace (integrity checks). */
  ids(scope: Scope, kind: VectorKind): Promise<string[]>;
  /** Bytes held by the vectors of a workspace (dimension x 4 x count for float32 storage). */
  bytes(scope: Scope): Promise<number>;
}

export interface TaskQuery {
  limit: number;
  offset: number;
  status?: TaskStatus;
}

export interface TaskTimes {
  created_at: string;
  finished_at: string | null;
}

export interface TaskStore {
  insert(scope: Scope, task: TaskRecord): Promise<void>;
  update(scope: Scope, id: string, patch: Partial<TaskRecord>): Promise<TaskRecord | null>;
  get(scope: Scope, id: string): Promise<TaskRecord | null>;
  list(scope: Scope, query: TaskQuery): Promise<Page<TaskRecord>>;
  /** How many tasks of the workspace have each status. */
  countByStatus(scope: Scope): Promise<Record<TaskStatus, number>>;
  /**
   * When the newest `limit` tasks of the workspace with `status` were created and finished, newest first (as
   * `list` orders them): what throughput and latency figures need, without whole records.
   */
  finishTimes(scope: Scope, status: TaskStatus, limit: number): Promise<TaskTimes[]>;
  /** Tasks in any workspace with one of the statuses (workers and recovery see every workspace). */
  listAll(statuses: TaskStatus[]): Promise<Array<{ scope: Scope; task: TaskRecord }>>;
  /**
   * Atomically claim one pending task, or a running task whose lease expired, for `owner` until `leaseUntil`.
   * Returns null when nothing is claimable.
   */
  claimNext(owner: string, now: string, leaseUntil: string): Promise<{ scope: Scope; task: TaskRecord } | null>;
  /** Extend a lease held by `owner`; false when the lease was lost. */
  renewLease(scope: Scope, id: string, owner: string, leaseUntil: string): Promise<boolean>;
  /** Pending and running tasks (the queued work) of one workspace, or of every workspace when `scope` is null. */
  countOpen(scope: Scope | null): Promise<number>;
}

/** A folder with the number of conversations filed in it. */
export type FolderSummary = FolderRecord & { conversation_count: number };

/** Which conversations a list keeps; a field left out keeps all. */
export interface ConversationFilter {
  /** Those filed in this folder. */
  folderId?: string;
  /** true: those in no folder; false: those in one. */
  unfiled?: boolean;
  pinned?: boolean;
  archived?: boolean;
  /** Those whose title contains this text, whatever the case. */
  search?: string;
  /** Those of one of these modes. */
  modes?: string[];
}

/** How a list of conversations is ordered (ties by id, ascending); most recently updated first by default. */
export interface ConversationOrder {
  sort?: 'updated_at' | 'created_at' | 'title';
  order?: 'asc' | 'desc';
}

export interface ConversationStore {
  create(scope: Scope, conversation: ConversationRecord): Promise<void>;
  get(scope: Scope, id: string): Promise<ConversationRecord | null>;
  list(scope: Scope, query: { limit: number; offset: number } & ConversationFilter & ConversationOrder): Promise<Page<ConversationRecord>>;
  update(scope: Scope, id: string, patch: Partial<ConversationRecord>): Promise<void>;
  delete(scope: Scope, id: string): Promise<boolean>;
  addMessage(scope: Scope, message: MessageRecord): Promise<void>;
  updateMessage(scope: Scope, id: string, patch: Partial<MessageRecord>): Promise<void>;
  listMessages(scope: Scope, conversationId: string, query: { limit: number; offset: number }): Promise<Page<MessageRecord>>;
  createFolder(scope: Scope, folder: FolderRecord): Promise<void>;
  getFolder(scope: Scope, id: string): Promise<FolderSummary | null>;
  /** By name, then id. */
  listFolders(scope: Scope): Promise<FolderSummary[]>;
  updateFolder(scope: Scope, id: string, patch: Partial<FolderRecord>): Promise<void>;
  /** Deletes the folder; the conversations filed in it stay, in no folder. */
  deleteFolder(scope: Scope, id: string): Promise<boolean>;
}

/** Small JSON values by key: the extraction cache, settings, and similar. */
export interface KeyValueStore {
  get<T>(scope: Scope, namespace: string, key: string): Promise<T | null>;
  getMany<T>(scope: Scope, namespace: string, keys: string[]): Promise<Map<string, T>>;
  set(scope: Scope, namespace: string, key: string, value: unknown): Promise<void>;
  /** Several keys in one write (one round trip where the store is remote); a key given twice keeps its last value. */
  setMany(scope: Scope, namespace: string, entries: Array<[string, unknown]>): Promise<void>;
  delete(scope: Scope, namespace: string, keys: string[]): Promise<void>;
  count(scope: Scope, namespace: string): Promise<number>;
}

/** The key-value store's reads and writes, without its count: what code that may run on a merge batch's view takes. */
export type KeyValues = Omit<KeyValueStore, 'count'>;

/**
 * Leases on keys, shared by every instance on the same database: the entity lock that ingestion and graph
 * edits hold while they rewrite records. A lease ends when released or when its time runs out, so keys
 * held by a crashed instance come free by themselves.
 */
export interface LockStore {
  /** Takes every key for `owner` for `ttlMs`, or none: false while another owner holds one of them unexpired. Taking a key again as its owner extends it. */
  acquire(scope: Scope, keys: string[], owner: string, ttlMs: number): Promise<boolean>;
  /** Frees the keys `owner` holds; a key held by another owner stays as it is. */
  release(scope: Scope, keys: string[], owner: string): Promise<void>;
  /** Extends `owner`'s lease on the keys to `ttlMs` from now; false when any of them is no longer `owner`'s. */
  renew(scope: Scope, keys: string[], owner: string, ttlMs: number): Promise<boolean>;
}

export interface CommunityQuery {
  limit: number;
  offset: number;
  level?: number;
}

/**
 * The communities of a workspace (src/domain/communities.ts). A run replaces them all at once; readers never
 * see half of one run and half of another.
 */
export interface CommunityStore {
  replaceAll(scope: Scope, communities: CommunityRecord[]): Promise<void>;
  /** Ordered by level, then rank (highest first), then id. */
  list(scope: Scope, query: CommunityQuery): Promise<Page<CommunityRecord>>;
  /** Every community of the workspace, in list order. */
  all(scope: Scope): Promise<CommunityRecord[]>;
  get(scope: Scope, id: string): Promise<CommunityRecord | null>;
  count(scope: Scope): Promise<number>;
}

export interface Stores {
  documents: DocumentStore;
  chunks: ChunkStore;
  graph: GraphStore;
  vectors: VectorStore;
  tasks: TaskStore;
  conversations: ConversationStore;
  kv: KeyValueStore;
  locks: LockStore;
  communities: CommunityStore;
  analytics: AnalyticsStore;
  /** Tenants, workspaces, users and credentials. */
  accounts: AccountStores;
  /** Usage records and budgets (cost accounting). */
  costs: CostStore;
  /** Analysts' own read-only Cypher; only the Neo4j stores have it. */
  cypher?: AnalystCypher;
  /** Retrieval's reads joined into one round trip each (Neo4j); others compose them (retrieval-reads.ts). */
  retrieval?: RetrievalReads;
  /** Live check per component, for /health. */
  health(): Promise<{ kv_storage: boolean; vector_storage: boolean; graph_storage: boolean }>;
  schema(): Promise<{ latest_version: number; migrations_applied: number; last_applied_at: string | null }>;
  /** Remove everything of a workspace. */
  dropWorkspace(scope: Scope): Promise<void>;
  close(): Promise<void>;
}
