import type { Scope } from '../domain/types';
import type { IngestDeps } from './deps';
import { type GraphVectors, storeGraphVectors } from './embed';
import { lockedBatches } from './workspace-batches';

/**
 * The vectors of graph records written in batches (./workspace-batches.ts): those that documents embedded while a
 * batch of their workspace was being written go together, under one entity lock over all their records, checked
 * and written in one read and one write per kind. The records most documents touch are the same few, so documents
 * in flight would otherwise take their lock one after another, each for a read and a write of its own.
 */

const inBatch = lockedBatches<GraphVectors, void>(
  (vectors) => vectors.lockIds,
  async (deps, scope, batch) => {
    await storeGraphVectors(deps.stores, scope, {
      entities: batch.flatMap((v) => v.entities),
      relationships: batch.flatMap((v) => v.relationships),
      lockIds: [],
    });
    return batch.map(() => undefined);
  },
);

/** Writes the vectors of the records still as embedded (storeGraphVectors); resolves once they are written. */
export function storeVectorsInBatch(deps: Pick<IngestDeps, 'stores' | 'entityLocks'>, scope: Scope, vectors: GraphVectors): Promise<void> {
  if (vectors.lockIds.length === 0) return Promise.resolve();
  return inBatch(deps, scope, vectors);
}
