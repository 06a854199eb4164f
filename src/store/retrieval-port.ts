import type { ChunkRecord, EntityRecord, RelationshipRecord, Scope } from '../domain/types';

/** A record with the score of its vector hit. */
export interface ScoredRecord<R> {
  record: R;
  score: number;
}

export interface EntityHits {
  /** Best first, as the vector search ranked them; hits without a stored record are left out. */
  hits: Array<ScoredRecord<EntityRecord>>;
  /**
   * With `around`: every relationship touching a hit that scores at least `minScore` (a seed); with `keep`, a store
   * may leave out those ranking after the first `keep` in local expansion's order (seeds joined, then the sum of the
   * end points' degrees, then weight), as long as every one tied with the last kept is there.
   */
  relationships: RelationshipRecord[];
  /** With `around`: the degree of the seeds and of every end point of those relationships. */
  degrees: Map<string, number>;
}

export interface RelationshipHits {
  hits: Array<ScoredRecord<RelationshipRecord>>;
  /**
   * With `ends`: the end points of the hits that score at least `minScore` (stored ones) and their degrees; with
   * `keep`, a store may leave out all but the first `keep` of them in hit order (each hit's source, then its target).
   */
  entities: EntityRecord[];
  degrees: Map<string, number>;
}

export interface ChunkHits {
  hits: Array<ScoredRecord<ChunkRecord>>;
  /** Title and file path of the hits' documents, by document id. */
  origins: Map<string, DocumentTitle>;
}

/**
 * The reads of one retrieval, each shaped as a step consumes it, so that a store able to join them answers each
 * in one round trip (Neo4j). Searches are `VectorStore.search` followed by the records of the hits: same hits,
 * same order, same filter. `composeRetrievalReads` (retrieval-reads.ts) builds them from the other ports.
 */
export interface RetrievalReads {
  entityHits(scope: Scope, vector: number[], topK: number, options: SearchOptions & AroundOptions): Promise<EntityHits>;
  relationshipHits(scope: Scope, vector: number[], topK: number, options: SearchOptions & EndsOptions): Promise<RelationshipHits>;
  /** Chunk search; `filter.ids` scores only those chunks (candidates known by id). */
  chunkHits(scope: Scope, vector: number[], topK: number, options: SearchOptions): Promise<ChunkHits>;
  /** Chunks by id, in the order asked (unknown ids skipped), with their documents' titles. */
  chunksWithOrigins(scope: Scope, ids: string[]): Promise<{ chunks: ChunkRecord[]; origins: Map<string, DocumentTitle> }>;
}

/** A document's title and file path: what sources cite. */
export interface DocumentTitle {
  title: string;
  file_path: string;
}

/** What a relationship search brings with its hits (`RelationshipHits.entities`). */
export interface EndsOptions {
  ends: boolean;
  /** The end points global expansion keeps: a store may leave out those after them. */
  keep?: number;
}

/** What an entity search brings around its hits (`EntityHits.relationships`). */
export interface AroundOptions {
  around: boolean;
  /** The relationships local expansion keeps: a store may leave out those that rank after them. */
  keep?: number;
}

export interface SearchOptions {
  /** As `VectorStore.search` takes it: points of those documents, or those points only. */
  filter?: { documentIds?: string[]; ids?: string[] };
  /** Hits below it bring no relationships or end points (they are still returned). */
  minScore: number;
  /**
   * At most this many of the latest chunk ids of each entity and relationship read; with it, its document ids only
   * under a document filter (which is checked against all of them), none without one: retrieval reads them for
   * nothing else. Whole records when absent. A hub named by every document would otherwise bring every one of its
   * sources to every query that touches it.
   */
  sources?: number;
}
