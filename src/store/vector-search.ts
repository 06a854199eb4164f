import type { Scope, VectorHit, VectorKind } from '../domain/types';
import type { VectorStore } from './ports';

/** Unfiltered searches of several vectors through the store's searchMany, else its `search` a few at a time. */
export function searchMany(
  store: Pick<VectorStore, 'search' | 'searchMany'>,
  scope: Scope,
  kind: VectorKind,
  vectors: number[][],
  topK: number,
): Promise<VectorHit[][]> {
  if (vectors.length === 0) return Promise.resolve([]);
  if (store.searchMany) return store.searchMany(scope, kind, vectors, topK);
  return searchEach(vectors, SEARCHES_AT_ONCE, (vector) => store.search(scope, kind, vector, topK));
}

const SEARCHES_AT_ONCE = 4;

/** `search` over `vectors`, at most `atOnce` in flight; the hits of each in its place. */
export async function searchEach(
  vectors: number[][],
  atOnce: number,
  search: (vector: number[]) => Promise<VectorHit[]>,
): Promise<VectorHit[][]> {
  const out = new Array<VectorHit[]>(vectors.length);
  let next = 0;
  const worker = async () => {
    while (next < vectors.length) {
      const i = next++;
      out[i] = await search(vectors[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, vectors.length) }, worker));
  return out;
}
