import type { ChunkRecord, EntityRecord, RelationshipRecord, Scope, VectorKind } from '../../domain/types';
import type { DocumentTitle, VectorStore } from '../ports';
import type {
  AroundOptions,
  ChunkHits,
  EndsOptions,
  EntityHits,
  RelationshipHits,
  RetrievalReads,
  ScoredRecord,
  SearchOptions,
} from '../retrieval-port';
import { sourceBounds } from '../retrieval-reads';
import { type Neo4jClient, type Row, scopeParams } from './client';
import { CHUNK_FIELDS, ENTITY_FIELDS, decode, decodeRelationship } from './codecs';
import { cypherText } from './cypher';
import { int, num } from './values';
import { Neo4jVectorStore } from './vectors';

type Hit = { score: number } & Row;

/** Neo4j scores vectors as (1 + cos) / 2; best first, then by id, as `VectorStore.search` orders them. */
function scored<R extends { id: string }>(hits: Hit[], decodeOne: (hit: Hit) => R): Array<ScoredRecord<R>> {
  return hits
    .map((hit) => ({ record: decodeOne(hit), score: hit.score === null ? 0 : 2 * num(hit.score) - 1 }))
    .sort((a, b) => b.score - a.score || (a.record.id < b.record.id ? -1 : a.record.id > b.record.id ? 1 : 0));
}

/**
 * The parameters retrieval/entity-hits and retrieval/relationship-hits share: how many expanded records to keep,
 * the seeds' least score on Neo4j's scale, and the latest sources each record keeps (they slice the lists by them).
 */
function hitParams(options: SearchOptions & { keep?: number }): Record<string, unknown> {
  const bounds = sourceBounds(options.sources, options.filter?.documentIds !== undefined);
  return {
    keep: options.keep === undefined ? null : int(options.keep),
    min_score: (options.minScore + 1) / 2,
    sources: int(bounds.chunks),
    document_sources: int(bounds.documents),
  };
}

function degreesFrom(value: unknown): Map<string, number> {
  return new Map(((value as Row[] | null) ?? []).map((d) => [String(d.id), num(d.degree)]));
}

function originsFrom(rows: Row[]): Map<string, DocumentTitle> {
  const origins = new Map<string, DocumentTitle>();
  for (const row of rows) {
    if (row.document !== null && row.document !== undefined)
      origins.set(String(row.document), { title: String(row.title ?? ''), file_path: String(row.file_path ?? '') });
  }
  return origins;
}

/**
 * Each retrieval read in one statement: the vector search as a subquery followed by the records a step needs
 * (cypher/retrieval/). With vectors elsewhere (Qdrant), their hits are passed in as rows (retrieval/found).
 */
export class Neo4jRetrievalReads implements RetrievalReads {
  constructor(
    private readonly db: Neo4jClient,
    private readonly vectors: VectorStore,
  ) {}

  /** The joined statement's one row; null when there was nothing to search. */
  private async searchRow(
    scope: Scope,
    kind: VectorKind,
    vector: number[],
    topK: number,
    options: SearchOptions,
    join: string,
    params: Record<string, unknown>,
  ): Promise<Row | null> {
    if (this.vectors instanceof Neo4jVectorStore) {
      const rows = await this.vectors.searchJoined(scope, kind, vector, topK, options.filter, { name: join, params });
      return rows?.[0] ?? null;
    }
    const hits = await this.vectors.search(scope, kind, vector, topK, options.filter);
    // Passed in on Neo4j's scale, as the joined statements read scores.
    const found = hits.map((h) => ({ id: h.id, score: (h.score + 1) / 2 }));
    const text = `${cypherText('retrieval/found')}\n${cypherText(join)}`;
    const [row] = await this.db.readText(text, { ...scopeParams(scope), ...params, found });
    return row ?? null;
  }

  async entityHits(scope: Scope, vector: number[], topK: number, options: SearchOptions & AroundOptions): Promise<EntityHits> {
    const row = await this.searchRow(scope, 'entity', vector, topK, options, 'retrieval/entity-hits', {
      around: options.around,
      ...hitParams(options),
    });
    if (!row) return { hits: [], relationships: [], degrees: new Map() };
    return {
      hits: scored(row.hits as Hit[], (hit): EntityRecord => decode(ENTITY_FIELDS, hit.entity)),
      relationships: ((row.relationships as Row[]) ?? []).map((r) => decodeRelationship(r.relationship, r.source, r.target)),
      degrees: degreesFrom(row.degrees),
    };
  }

  async relationshipHits(scope: Scope, vector: number[], topK: number, options: SearchOptions & EndsOptions): Promise<RelationshipHits> {
    const row = await this.searchRow(scope, 'relationship', vector, topK, options, 'retrieval/relationship-hits', {
      ends: options.ends,
      ...hitParams(options),
    });
    if (!row) return { hits: [], entities: [], degrees: new Map() };
    return {
      hits: scored(row.hits as Hit[], (hit): RelationshipRecord => decodeRelationship(hit.relationship, hit.source, hit.target)),
      entities: ((row.entities as unknown[]) ?? []).map((e) => decode(ENTITY_FIELDS, e)),
      degrees: degreesFrom(row.degrees),
    };
  }

  async chunkHits(scope: Scope, vector: number[], topK: number, options: SearchOptions): Promise<ChunkHits> {
    const row = await this.searchRow(scope, 'chunk', vector, topK, options, 'retrieval/chunk-hits', {});
    if (!row) return { hits: [], origins: new Map() };
    const hits = row.hits as Hit[];
    return { hits: scored(hits, (hit): ChunkRecord => decode(CHUNK_FIELDS, hit.chunk)), origins: originsFrom(hits) };
  }

  async chunksWithOrigins(scope: Scope, ids: string[]): Promise<{ chunks: ChunkRecord[]; origins: Map<string, DocumentTitle> }> {
    if (ids.length === 0) return { chunks: [], origins: new Map() };
    const rows = await this.db.readRows('retrieval/chunks-with-origins', { ...scopeParams(scope), ids });
    return { chunks: rows.map((row) => decode(CHUNK_FIELDS, row.chunk)), origins: originsFrom(rows) };
  }
}
