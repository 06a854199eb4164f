import type { EntityRecord, RelationshipRecord, Scope, VectorHit, VectorKind } from '../domain/types';
import { latestOf } from './latest-sources';
import type { DocumentTitle, GraphStore, SourceBounds as Bounds, Stores } from './ports';
import type {
  AroundOptions,
  ChunkHits,
  EndsOptions,
  EntityHits,
  RelationshipHits,
  RetrievalReads,
  ScoredRecord,
  SearchOptions,
} from './retrieval-port';

type Parts = Pick<Stores, 'vectors' | 'graph' | 'chunks' | 'documents'>;

/** More sources than any record holds: the bound of a read that keeps them all (Cypher slices take 32-bit ints). */
const ALL_SOURCES = 2 ** 31 - 1;

/**
 * How many of a record's latest sources a read keeps (`SearchOptions.sources`; the whole record when absent). In
 * a bounded read, document ids serve only a document filter, which is checked against them: all of them under
 * one, none without.
 */
export function sourceBounds(sources: number | undefined, filtered: boolean): Bounds {
  if (sources === undefined) return { chunks: ALL_SOURCES, documents: ALL_SOURCES };
  return { chunks: sources, documents: filtered ? ALL_SOURCES : 0 };
}

function boundsOf(options: SearchOptions): Bounds {
  return sourceBounds(options.sources, options.filter?.documentIds !== undefined);
}

/** The record with only its latest chunk and document ids, as the bounds allow. */
export function withLatestSources<R extends { source_chunk_ids: string[]; document_ids: string[] }>(record: R, bounds: Bounds): R {
  if (record.source_chunk_ids.length <= bounds.chunks && record.document_ids.length <= bounds.documents) return record;
  return {
    ...record,
    source_chunk_ids: latestOf(record.source_chunk_ids, bounds.chunks),
    document_ids: latestOf(record.document_ids, bounds.documents),
  };
}

/** The entities in the order asked for (unknown ids skipped), each with only its latest sources. */
export async function entitiesWithin(graph: GraphStore, scope: Scope, ids: string[], bounds: Bounds): Promise<EntityRecord[]> {
  if (ids.length === 0) return [];
  if (graph.entitiesWithin) return graph.entitiesWithin(scope, ids, bounds);
  return (await graph.getEntities(scope, ids)).map((e) => withLatestSources(e, bounds));
}

/** The relationships in the order asked for (unknown ids skipped), each with only its latest sources. */
export async function relationshipsWithin(graph: GraphStore, scope: Scope, ids: string[], bounds: Bounds): Promise<RelationshipRecord[]> {
  if (ids.length === 0) return [];
  if (graph.relationshipsWithin) return graph.relationshipsWithin(scope, ids, bounds);
  return (await graph.getRelationships(scope, ids)).map((r) => withLatestSources(r, bounds));
}

/** The relationships touching the entities, in any order, each with only its latest sources. */
export async function relationshipsAround(
  graph: GraphStore,
  scope: Scope,
  entityIds: string[],
  bounds: Bounds,
  keep?: number,
): Promise<RelationshipRecord[]> {
  if (graph.relationshipsAround) return graph.relationshipsAround(scope, entityIds, bounds, keep);
  return (await graph.relationshipsOf(scope, entityIds)).map((r) => withLatestSources(r, bounds));
}

function idsOf(hits: VectorHit[]): string[] {
  return hits.map((h) => h.id);
}

/** The records of the hits, in hit order; hits without a record are left out. */
function inHitOrder<R extends { id: string }>(hits: VectorHit[], records: R[]): Array<ScoredRecord<R>> {
  const byId = new Map(records.map((r) => [r.id, r]));
  const found: Array<ScoredRecord<R>> = [];
  for (const hit of hits) {
    const record = byId.get(hit.id);
    if (record) found.push({ record, score: hit.score });
  }
  return found;
}

/**
 * The retrieval reads built from the other ports, one call after another: the reference behaviour, used by the
 * stores that cannot join them (memory, and vectors in Qdrant).
 */
export class ComposedRetrievalReads implements RetrievalReads {
  constructor(private readonly stores: Parts) {}

  protected search(scope: Scope, kind: VectorKind, vector: number[], topK: number, options: SearchOptions): Promise<VectorHit[]> {
    return this.stores.vectors.search(scope, kind, vector, topK, options.filter);
  }

  async entityHits(scope: Scope, vector: number[], topK: number, options: SearchOptions & AroundOptions): Promise<EntityHits> {
    const found = await this.search(scope, 'entity', vector, topK, options);
    const bounds = boundsOf(options);
    const records = await entitiesWithin(this.stores.graph, scope, idsOf(found), bounds);
    const hits = inHitOrder(found, records);
    const seeds = hits.filter((h) => h.score >= options.minScore).map((h) => h.record.id);
    if (!options.around || seeds.length === 0) return { hits, relationships: [], degrees: new Map() };
    return { hits, ...(await this.around(scope, seeds, bounds, options.keep)) };
  }

  /** The relationships touching the seeds and the degrees of the seeds and of every end point. */
  private async around(
    scope: Scope,
    seeds: string[],
    bounds: Bounds,
    keep: number | undefined,
  ): Promise<Pick<EntityHits, 'relationships' | 'degrees'>> {
    const relationships = await relationshipsAround(this.stores.graph, scope, seeds, bounds, keep);
    const ends = new Set(seeds);
    for (const r of relationships) ends.add(r.source).add(r.target);
    return { relationships, degrees: await this.stores.graph.degrees(scope, [...ends]) };
  }

  async relationshipHits(scope: Scope, vector: number[], topK: number, options: SearchOptions & EndsOptions): Promise<RelationshipHits> {
    const found = await this.search(scope, 'relationship', vector, topK, options);
    const bounds = boundsOf(options);
    const hits = inHitOrder(found, await relationshipsWithin(this.stores.graph, scope, idsOf(found), bounds));
    const reached = hits.filter((h) => h.score >= options.minScore).flatMap((h) => [h.record.source, h.record.target]);
    const ends = [...new Set(reached)].slice(0, options.keep);
    if (!options.ends || ends.length === 0) return { hits, entities: [], degrees: new Map() };
    const [entities, degrees] = await Promise.all([
      entitiesWithin(this.stores.graph, scope, ends, bounds),
      this.stores.graph.degrees(scope, ends),
    ]);
    return { hits, entities, degrees };
  }

  async chunkHits(scope: Scope, vector: number[], topK: number, options: SearchOptions): Promise<ChunkHits> {
    const found = await this.search(scope, 'chunk', vector, topK, options);
    if (found.length === 0) return { hits: [], origins: new Map() };
    const { chunks, origins } = await this.chunksWithOrigins(scope, idsOf(found));
    return { hits: inHitOrder(found, chunks), origins };
  }

  async chunksWithOrigins(
    scope: Scope,
    ids: string[],
  ): Promise<{ chunks: Awaited<ReturnType<Parts['chunks']['getMany']>>; origins: Map<string, DocumentTitle> }> {
    const chunks = ids.length ? await this.stores.chunks.getMany(scope, ids) : [];
    const documents = [...new Set(chunks.map((c) => c.document_id))];
    const origins = documents.length ? await this.stores.documents.titles(scope, documents) : new Map<string, DocumentTitle>();
    return { chunks, origins };
  }
}

/** The stores' own retrieval reads, or the composed ones. */
export function retrievalReadsOf(stores: Stores): RetrievalReads {
  return stores.retrieval ?? new ComposedRetrievalReads(stores);
}
