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
}

export function nowOf(deps: GraphDeps): string {
  return deps.now ? deps.now() : new Date().toISOString();
}
