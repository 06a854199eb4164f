import { TimeSlicer } from '../domain/turns';
import type { ChunkRecord, Scope } from '../domain/types';
import { documentLinksLockKey } from '../graph/locks';
import { statementsUnderAliases, withAliasedEntityLock } from './aliases';
import type { IngestDeps } from './deps';
import type { Contribution } from './merge';

export interface DocumentCounts {
  entities: number;
  relationships: number;
}

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
  const { kv, chunks: chunkStore, documents } = deps.stores;
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
    const entities = new Set<string>();
    const relationships = new Set<string>();
    for (const chunk of chunks) {
      await slicer.tick();
      const said = statements.get(chunk.id);
      chunk.entity_ids = said ? [...said.entities.keys()] : [];
      chunk.relationship_ids = said ? [...said.relations.keys()] : [];
      for (const id of chunk.entity_ids) entities.add(id);
      for (const id of chunk.relationship_ids) relationships.add(id);
    }
    const counts = { entities: entities.size, relationships: relationships.size };
    // Inside the entity lock, as merges of resolution take it (graph/merge.ts): taken with the entity keys at once,
    // a holder could hold its turn on this key while waiting for an entity such a merge holds, and the merge wait for it.
    await deps.entityLocks.run(scope, [documentLinksLockKey(documentId)], async () => {
      await chunkStore.upsertMany(scope, chunks);
      await documents.update(scope, documentId, { entity_count: counts.entities, relationship_count: counts.relationships });
    });
    return counts;
  });
}
