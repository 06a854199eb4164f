import type { Scope } from '../domain/types';
import type { IngestDeps } from './deps';
import { type GraphVectors, storeGraphVectors } from './embed';
import { WorkspaceBatches } from './workspace-batches';

/**
 * The vectors of graph records written in batches (./workspace-batches.ts): those that documents embedded while a
 * batch of their workspace was being written go together, under one entity lock over all their records, checked
 * and written in one read and one write per kind. The records most documents touch are the same few, so documents
 * in flight would otherwise take their lock one after another, each for a read and a write of its own.
 */

type VectorDeps = Pick<IngestDeps, 'stores' | 'entityLocks'>;

interface Pending {
  vectors: GraphVectors;
  resolve: () => void;
  reject: (err: unknown) => void;
}

const batches = new WorkspaceBatches<VectorDeps, Pending>((deps) => deps.stores, writeBatch);

/** Writes the vectors of the records still as embedded (storeGraphVectors); resolves once they are written. */
export function storeVectorsInBatch(deps: VectorDeps, scope: Scope, vectors: GraphVectors): Promise<void> {
  if (vectors.lockIds.length === 0) return Promise.resolve();
  return new Promise((resolve, reject) => batches.add(deps, scope, { vectors, resolve, reject }));
}

async function writeBatch(deps: VectorDeps, scope: Scope, batch: Pending[]): Promise<void> {
  const all: GraphVectors = {
    entities: batch.flatMap((p) => p.vectors.entities),
    relationships: batch.flatMap((p) => p.vectors.relationships),
    lockIds: [...new Set(batch.flatMap((p) => p.vectors.lockIds))],
  };
  try {
    await deps.entityLocks.run(scope, all.lockIds, () => storeGraphVectors(deps.stores, scope, all));
  } catch (err) {
    for (const p of batch) p.reject(err);
    return;
  }
  for (const p of batch) p.resolve();
}
