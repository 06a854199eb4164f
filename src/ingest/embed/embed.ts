import type { ChunkRecord, EntityRecord, RelationshipRecord, Scope, VectorKind, VectorPoint } from '../../domain/types';
import { throwIfAborted } from '../../domain/abort';
import type { EmbeddingProvider } from '../../llm/ports';
import type { Stores, VectorStore } from '../../store/ports';
import { entitiesWithin, relationshipsWithin, sourceBounds } from '../../store/retrieval-reads';
import type { EmbeddingQueues, Lane } from './queue';
import { entityText, relationshipText } from '../../records/embed-text';

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
  /** The runtime's embedding queues (IngestState). */
  queues: EmbeddingQueues;
  concurrency: number;
  signal?: AbortSignal;
  /** Called with the number of items embedded so far. */
  onProgress?: (done: number) => void | Promise<void>;
}

/** Embeds and upserts items through the provider's shared queue, a batch at a time as each is embedded. */
export async function embedInto(
  vectors: VectorStore,
  scope: Scope,
  kind: VectorKind,
  embedder: EmbeddingProvider,
  items: EmbedItem[],
  options: EmbedOptions,
): Promise<void> {
  await embedBatches(embedder, scope, kind, items, options, (points) => vectors.upsert(scope, kind, points));
}

/**
 * Queues the items on the provider's embedding queue (./queue.ts) a slice of EMBED_BATCH_SIZE at a time,
 * at most `concurrency` slices outstanding, and hands each slice's points to `sink` as it is embedded, with the
 * text each vector was computed from. The bound keeps a large document from opening one store write per
 * slice at once.
 */
async function embedBatches(
  embedder: EmbeddingProvider,
  scope: Scope,
  kind: VectorKind,
  items: EmbedItem[],
  options: EmbedOptions,
  sink: (points: VectorPoint[], texts: string[]) => Promise<void> | void,
  lane: Lane = 'now',
): Promise<void> {
  const queue = options.queues.of(embedder, options.concurrency);
  let done = 0;
  const slices: EmbedItem[][] = [];
  for (let i = 0; i < items.length; i += EMBED_BATCH_SIZE) slices.push(items.slice(i, i + EMBED_BATCH_SIZE));
  let next = 0;
  const worker = async () => {
    while (next < slices.length) {
      const slice = slices[next++];
      const embedded = await queue.embed(scope, kind, slice, options.signal, lane);
      throwIfAborted(options.signal);
      await sink(
        slice.map((item, i) => ({ id: item.id, vector: embedded[i].vector, document_ids: item.document_ids })),
        embedded.map((e) => e.text),
      );
      done += slice.length;
      await options.onProgress?.(done);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, slices.length)) }, worker));
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

/**
 * Embeds the records to re-embed; no lock is needed, nothing is written. In the `later` lane the queue may
 * hold them back to coalesce refreshes (./queue.ts).
 */
export async function embedGraphRecords(
  embedder: () => EmbeddingProvider,
  scope: Scope,
  change: Pick<GraphVectorChange, 'reembed'>,
  options: EmbedOptions,
  lane: Lane = 'now',
): Promise<GraphVectors> {
  const { entities, relationships } = change.reembed;
  const lockIds = new Set([...entities.map((e) => e.id), ...relationships.flatMap((r) => [r.source, r.target])]);
  const out: GraphVectors = { entities: [], relationships: [], lockIds: [...lockIds] };
  if (entities.length === 0 && relationships.length === 0) return out;
  const provider = embedder();
  const collect = (kind: VectorKind, items: EmbedItem[], into: GraphVectors['entities']) =>
    embedBatches(
      provider,
      scope,
      kind,
      items,
      options,
      (points, texts) => {
        points.forEach((point, i) => into.push({ point, text: texts[i] }));
      },
      lane,
    );
  await Promise.all([
    collect('entity', entityItems(entities), out.entities),
    collect('relationship', relationshipItems(relationships), out.relationships),
  ]);
  return out;
}

const DOCUMENTS_ONLY = sourceBounds(0, true);

/** Records whose vector a batch did not write, as they are now: changed since they were embedded. */
export type UnwrittenVectors = Pick<GraphVectorChange, 'reembed'>;

/**
 * Under the entity lock: writes the vectors computed from the records' texts as they are now (a record may have
 * gained documents since; its vector carries them). A record whose text changed since was changed by a later
 * writer, which embeds and writes its own version; the records none of whose vectors was written are returned as
 * they are now, since that later version may have been embedded with an older text (the queue keeps the text
 * queued last, and a document may queue its text after a newer one).
 */
export async function storeGraphVectors(
  stores: Pick<Stores, 'graph' | 'vectors'>,
  scope: Scope,
  embedded: GraphVectors,
): Promise<UnwrittenVectors> {
  // Compared on their text, and written with their document ids: their chunk ids (thousands for a hub) are not read.
  const [entities, relationships] = await Promise.all([
    entitiesWithin(
      stores.graph,
      scope,
      embedded.entities.map((e) => e.point.id),
      DOCUMENTS_ONLY,
    ),
    relationshipsWithin(
      stores.graph,
      scope,
      embedded.relationships.map((r) => r.point.id),
      DOCUMENTS_ONLY,
    ),
  ]);
  // A vector of the record's text as it is now is written with the record's documents as they are now.
  const asNow = (items: EmbedItem[], vectors: GraphVectors['entities']): VectorPoint[] => {
    const now = new Map(items.map((item) => [item.id, item]));
    return vectors.flatMap(({ point, text }) => {
      const item = now.get(point.id);
      return item !== undefined && item.text === text ? [{ ...point, document_ids: item.document_ids }] : [];
    });
  };
  // A record embedded twice with the same text (by two documents of a batch) is written once.
  const entityPoints = lastById(asNow(entityItems(entities), embedded.entities));
  const relationshipPoints = lastById(asNow(relationshipItems(relationships), embedded.relationships));
  if (entityPoints.length) await stores.vectors.upsert(scope, 'entity', entityPoints);
  if (relationshipPoints.length) await stores.vectors.upsert(scope, 'relationship', relationshipPoints);
  const notIn = (points: VectorPoint[]) => {
    const written = new Set(points.map((p) => p.id));
    return (record: { id: string }) => !written.has(record.id);
  };
  return { reembed: { entities: entities.filter(notIn(entityPoints)), relationships: relationships.filter(notIn(relationshipPoints)) } };
}

function lastById(points: VectorPoint[]): VectorPoint[] {
  return [...new Map(points.map((p) => [p.id, p])).values()];
}
