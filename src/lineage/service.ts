import type { Scope } from '../domain/types';
import { type LineageDeps, chunkDetail, chunkLineage } from './chunks';
import { documentGraphLineage, documentLineage } from './documents';
import { entityLineage, entityProvenance } from './entities';

/** Lineage from document to chunk to entity and back (docs/api.md §4.10), built from the records themselves. */
export function createLineageService(deps: LineageDeps) {
  const { stores } = deps;
  return {
    documentLineage: (scope: Scope, documentId: string) => documentLineage(stores, scope, documentId),
    documentGraphLineage: (scope: Scope, documentId: string) => documentGraphLineage(stores, scope, documentId),
    chunkDetail: (scope: Scope, chunkId: string) => chunkDetail(stores, scope, chunkId),
    chunkLineage: (scope: Scope, chunkId: string) => chunkLineage(deps, scope, chunkId),
    entityProvenance: (scope: Scope, entityId: string) => entityProvenance(stores, scope, entityId),
    entityLineage: (scope: Scope, entityName: string) => entityLineage(stores, scope, entityName),
  };
}

export type LineageService = ReturnType<typeof createLineageService>;
