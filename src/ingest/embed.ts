import type { ChunkRecord, EntityRecord, RelationshipRecord, Scope, VectorKind, VectorPoint } from '../domain/types';
import { throwIfAborted } from '../domain/abort';
import type { EmbeddingProvider } from '../llm/ports';
import type { Stores, VectorStore } from '../store/ports';
import { entityText, relationshipText } from './record-diff';

/**
 * Embedding (docs/architecture.md §5.6): chunks (content), entities (`name: description`) and relationships
 * (`keywords\nsource - target\ndescription`), in batches, each point carrying its documents.
 */

export const EMBED_BATCH_SIZE = 64;

export interface EmbedItem {
  id: string;
  text: string;
  document_ids: string[];
}

export interface EmbedOptions {
  concurrency: number;
  signal?: AbortSignal;
  /** Called with the number of items embedded so far. */
  onProgress?: (done: number) => void | Promise<void>;
}

/** Embeds and upserts items batch by batch, at most `concurrency` batches at a time. */
export async function embedInto(
  vectors: VectorStore,
  scope: Scope,
  kind: VectorKind,
  embedder: EmbeddingProvider,
  items: EmbedItem[],
  options: EmbedOptions,
): Promise<void> {
  await embedBatches(embedder, items, options, (points) => vectors.upsert(scope, kind, points));
}

/** Embeds items batch by batch, at most `concurrency` batches at a time, handing each batch's points to `sink`. */
async function embedBatches(
  embedder: EmbeddingProvider,
  items: EmbedItem[],
  options: EmbedOptions,
  sink: (points: VectorPoint[]) => Promise<void> | void,
): Promise<void> {
  const batches: EmbedItem[][] = [];
  for (let i = 0; i < items.length; i += EMBED_BATCH_SIZE) batches.push(items.slice(i, i + EMBED_BATCH_SIZE));
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < batches.length) {
      const batch = batches[next++];
      const embedded = await embedder.embed(
        batch.map((item) => item.text),
        options.signal,
      );
      if (embedded.length !== batch.length) {
        throw new Error(`embedding provider returned ${embedded.length} vectors for ${batch.length} texts`);
      }
      throwIfAborted(options.signal);
      await sink(batch.map((item, i) => ({ id: item.id, vector: embedded[i], document_ids: item.document_ids })));
      done += batch.length;
      await options.onProgress?.(done);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, batches.length)) }, worker));
}

export function chunkItems(chunks: ChunkRecord[]): EmbedItem[] {
  return chunks.map((c) => ({ id: c.id, text: c.content, document_ids: [c.document_id] }));
}

export function entityItems(entities: EntityRecord[]): EmbedItem[] {
  return entities.map((e) => ({ id: e.id, text: entityText(e), document_ids: e.document_ids }));
}

export function relationshipItems(relationships: RelationshipRecord[]): EmbedItem[] {
  return relationships.map((r) => ({ id: r.id, text: relationshipText(r), document_ids: r.document_ids }));
}

export interface GraphVectorChange {
  reembed: { entities: EntityRecord[]; relationships: RelationshipRecord[] };
  removed: { entities: string[]; relationships: RelationshipRecord[] };
}

export async function deleteGraphVectors(vectors: VectorStore, scope: Scope, change: GraphVectorChange): Promise<void> {
  if (change.removed.relationships.length)
    await vectors.delete(
      scope,
      'relationship',
      change.removed.relationships.map((r) => r.id),
    );
  if (change.removed.entities.length) await vectors.delete(scope, 'entity', change.removed.entities);
}

/** Vectors of records as a merge wrote them, with the text each was computed from. */
export interface GraphVectors {
  entities: Array<{ point: VectorPoint; text: string }>;
  relationships: Array<{ point: VectorPoint; text: string }>;
  /** Entity ids whose lock covers the records: the entities, and the relationships' endpoints. */
  lockIds: string[];
}

/** Embeds the records to re-embed; no lock is needed, nothing is written. */
export async function embedGraphRecords(
  embedder: () => EmbeddingProvider,
  change: GraphVectorChange,
  options: EmbedOptions,
): Promise<GraphVectors> {
  const { entities, relationships } = change.reembed;
  const lockIds = new Set([...entities.map((e) => e.id), ...relationships.flatMap((r) => [r.source, r.target])]);
  const out: GraphVectors = { entities: [], relationships: [], lockIds: [...lockIds] };
  if (entities.length === 0 && relationships.length === 0) return out;
  const provider = embedder();
  const collect = (items: EmbedItem[], into: GraphVectors['entities']) => {
    const texts = new Map(items.map((item) => [item.id, item.text]));
    return embedBatches(provider, items, options, (points) => {
      for (const point of points) into.push({ point, text: texts.get(point.id) ?? '' });
    });
  };
  await collect(entityItems(entities), out.entities);
  await collect(relationshipItems(relationships), out.relationships);
  return out;
}

/**
 * Under the entity lock: writes the vectors of the records that are still as they were embedded. A record
 * changed since was changed by a later writer, which embeds and writes its own version.
 */
export async function storeGraphVectors(stores: Pick<Stores, 'graph' | 'vectors'>, scope: Scope, embedded: GraphVectors): Promise<void> {
  const [entities, relationships] = await Promise.all([
    stores.graph.getEntities(
      scope,
      embedded.entities.map((e) => e.point.id),
    ),
    stores.graph.getRelationships(
      scope,
      embedded.relationships.map((r) => r.point.id),
    ),
  ]);
  const current = (items: EmbedItem[]) => new Map(items.map((item) => [item.id, item]));
  const still = (now: Map<string, EmbedItem>) => (e: { point: VectorPoint; text: string }) => {
    const item = now.get(e.point.id);
    return item !== undefined && item.text === e.text && sameList(item.document_ids, e.point.document_ids);
  };
  const entityPoints = embedded.entities.filter(still(current(entityItems(entities)))).map((e) => e.point);
  const relationshipPoints = embedded.relationships.filter(still(current(relationshipItems(relationships)))).map((r) => r.point);
  if (entityPoints.length) await stores.vectors.upsert(scope, 'entity', entityPoints);
  if (relationshipPoints.length) await stores.vectors.upsert(scope, 'relationship', relationshipPoints);
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
