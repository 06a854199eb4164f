import type { Scope } from '../../domain/types';
import type { IngestDeps } from '../deps';
import { type GraphVectors, storeGraphVectors, type UnwrittenVectors } from '../embed/embed';
import { lockedBatches } from './workspace-batches';

/**
 * The vectors of graph records written in batches (./workspace-batches.ts): those that documents embedded while a
 * batch of their workspace was being written go together, under one entity lock over all their records, checked
 * and written in one read and one write per kind. The records most documents touch are the same few, so documents
 * in flight would otherwise take their lock one after another, each for a read and a write of its own.
 */

const inBatch = lockedBatches<GraphVectors, UnwrittenVectors>(
  (vectors) => vectors.lockIds,
  async (deps, scope, batch) => {
    const unwritten = await storeGraphVectors(deps.stores, scope, {
      entities: batch.flatMap((v) => v.entities),
      relationships: batch.flatMap((v) => v.relationships),
      lockIds: [],
    });
    // Each member gets those of its own records.
    return batch.map((v) => {
      const mine = (list: Array<{ point: { id: string } }>) => new Set(list.map((e) => e.point.id));
      const [entities, relationships] = [mine(v.entities), mine(v.relationships)];
      return {
        reembed: {
          entities: unwritten.reembed.entities.filter((e) => entities.has(e.id)),
          relationships: unwritten.reembed.relationships.filter((r) => relationships.has(r.id)),
        },
      };
    });
  },
);

const NONE: UnwrittenVectors = { reembed: { entities: [], relationships: [] } };

/**
 * Writes the vectors computed from the records' texts as they are now (storeGraphVectors); resolves once they are
 * written, with the records whose vector was not written as they are now.
 */
export function storeVectorsInBatch(
  deps: Pick<IngestDeps, 'stores' | 'entityLocks' | 'ingest'>,
  scope: Scope,
  vectors: GraphVectors,
): Promise<UnwrittenVectors> {
  if (vectors.lockIds.length === 0) return Promise.resolve(NONE);
  return inBatch(deps, scope, vectors);
}
