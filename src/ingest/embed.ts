import type { ChunkRecord, EntityRecord, RelationshipRecord, Scope, VectorKind } from '../domain/types';
import { throwIfAborted } from '../llm/abort';
import type { EmbeddingProvider } from '../llm/ports';
import type { VectorStore } from '../store/ports';
import { entityText, relationshipText } from './merge';

/**
 * Embedding (DESIGN.md 5.6): chunks (content), entities (`name: description`) and relationships
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
      await vectors.upsert(
        scope,
        kind,
        batch.map((item, i) => ({ id: item.id, vector: embedded[i], document_ids: item.document_ids })),
      );
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

/** Vectors follow a merge: removed records lose theirs, changed ones are re-embedded. */
export async function applyGraphVectors(
  vectors: VectorStore,
  scope: Scope,
  embedder: () => EmbeddingProvider,
  change: GraphVectorChange,
  options: EmbedOptions,
): Promise<void> {
  await deleteGraphVectors(vectors, scope, change);
  await embedGraphRecords(vectors, scope, embedder, change, options);
}

export async function deleteGraphVectors(vectors: VectorStore, scope: Scope, change: GraphVectorChange): Promise<void> {
  if (change.removed.relationships.length) await vectors.delete(scope, 'relationship', change.removed.relationships.map((r) => r.id));
  if (change.removed.entities.length) await vectors.delete(scope, 'entity', change.removed.entities);
}

export async function embedGraphRecords(
  vectors: VectorStore,
  scope: Scope,
  embedder: () => EmbeddingProvider,
  change: GraphVectorChange,
  options: EmbedOptions,
): Promise<void> {
  const { entities, relationships } = change.reembed;
  if (entities.length === 0 && relationships.length === 0) return;
  const provider = embedder();
  await embedInto(vectors, scope, 'entity', provider, entityItems(entities), options);
  await embedInto(vectors, scope, 'relationship', provider, relationshipItems(relationships), options);
}
