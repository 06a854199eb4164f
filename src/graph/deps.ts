import type { Scope, VectorKind } from '../domain/types';
import type { LlmCache } from '../llm/cache/responses';
import type { ProviderRegistry } from '../llm/ports';
import type { Stores } from '../store/ports';
import type { GraphEvents } from './events';
import type { EntityLocks } from '../records/locks';

/** What the graph services work with; `now` is injectable so that tests can order merges. */
export interface GraphDeps {
  stores: Stores;
  events: GraphEvents;
  providers: ProviderRegistry;
  entityLocks: EntityLocks;
  /** The runtime's LLM response cache. */
  llmCache: LlmCache;
  now?: () => string;
  /**
   * Embeds records' texts, vectors in their order; without it, graph edits call the embedding provider. Ingestion
   * sets it to its shared embedding queue for the merges of entity resolution.
   */
  embedRecords?: (scope: Scope, kind: VectorKind, records: Array<{ id: string; text: string }>) => Promise<number[][]>;
}

export function nowOf(deps: GraphDeps): string {
  return deps.now ? deps.now() : new Date().toISOString();
}
