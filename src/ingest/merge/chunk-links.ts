import { TimeSlicer } from '../../domain/turns';
import type { ChunkRecord, Scope } from '../../domain/types';
import { documentLinksLockKey } from '../../records/locks';
import { statementsUnderAliases, withAliasedEntityLock } from './aliases';
import type { IngestDeps } from '../deps';
import type { Contribution } from './merge';
import type { DocumentCounts, MergeOutcome } from './merge-outcome';

export type { DocumentCounts };

/**
 * Writes a document's chunk records with the entities and relationships their extractions name, and the
 * document's counts, under the entity lock of those names and the survivors they go by, reading the aliases
 * inside it, and under the document's key within it (the one merges rewrite its chunks and counts under). A
 * merge that folded a named entity into another before this write is followed to the survivor; one that comes
 * after finds the chunk linked and rewrites it (graph/merge.ts). Links computed when the document merged and
 * written later could name an entity merged away in between.
 */
export async function writeChunkLinks(
  deps: Pick<IngestDeps, 'stores' | 'entityLocks'>,
  scope: Scope,
  documentId: string,
  chunks: ChunkRecord[],
  contributions: Contribution[],
): Promise<DocumentCounts> {
  const { kv } = deps.stores;
  // A large document's thousands of chunks are walked in stretches that give way to I/O.
  const slicer = new TimeSlicer();
  const extractions: Array<[string, Contribution['extraction']]> = [];
  const named = new Set<string>();
  for (const c of contributions) {
    await slicer.tick();
    extractions.push([c.chunkId, c.extraction]);
    for (const x of c.extraction.entities) named.add(x.id);
    for (const r of c.extraction.relations) named.add(r.source).add(r.target);
  }
  return withAliasedEntityLock(kv, deps.entityLocks, scope, [...named], async (resolved) => {
    const { statements } = await statementsUnderAliases(kv, scope, extractions, resolved);
    const said = new Map(
      [...statements].map(([chunkId, s]) => [chunkId, { entity_ids: [...s.entities.keys()], relationship_ids: [...s.relations.keys()] }]),
    );
    const counts = await linkChunks(chunks, said, slicer);
    await writeLinked(deps, scope, [{ documentId, chunks, counts }]);
    return counts;
  });
}

/** A document's chunks, with what each names, and its counts. */
export interface LinkedDocument {
  documentId: string;
  chunks: ChunkRecord[];
  counts: DocumentCounts;
}

/**
 * The chunk records of a document merged just now, linked to what its merge found each chunk names (read under
 * the aliases of that moment, inside the merge's entity lock); to be written under that lock with `writeLinked`.
 */
export async function linkMergedChunks(documentId: string, chunks: ChunkRecord[], outcome: MergeOutcome): Promise<LinkedDocument> {
  return { documentId, chunks, counts: await linkChunks(chunks, outcome.chunks, new TimeSlicer()) };
}

/**
 * Writes the chunks and counts of documents whose entity lock the caller holds, under the documents' keys within
 * it, as merges of resolution take them (graph/merge.ts): taken with the entity keys at once, a holder could hold
 * its turn on a document's key while waiting for an entity such a merge holds, and the merge wait for it.
 */
export async function writeLinked(deps: Pick<IngestDeps, 'stores' | 'entityLocks'>, scope: Scope, linked: LinkedDocument[]): Promise<void> {
  if (linked.length === 0) return;
  const { chunks, documents } = deps.stores;
  await deps.entityLocks.run(
    scope,
    linked.map((l) => documentLinksLockKey(l.documentId)),
    async () => {
      await chunks.upsertMany(
        scope,
        linked.flatMap((l) => l.chunks),
      );
      await documents.setGraphCounts(scope, new Map(linked.map(({ documentId, counts }) => [documentId, counts])));
    },
  );
}

async function linkChunks(
  chunks: ChunkRecord[],
  said: ReadonlyMap<string, { entity_ids: string[]; relationship_ids: string[] }>,
  slicer: TimeSlicer,
): Promise<DocumentCounts> {
  const entities = new Set<string>();
  const relationships = new Set<string>();
  for (const chunk of chunks) {
    await slicer.tick();
    const links = said.get(chunk.id);
    chunk.entity_ids = links ? [...links.entity_ids] : [];
    chunk.relationship_ids = links ? [...links.relationship_ids] : [];
    for (const id of chunk.entity_ids) entities.add(id);
    for (const id of chunk.relationship_ids) relationships.add(id);
  }
  return { entities: entities.size, relationships: relationships.size };
}
