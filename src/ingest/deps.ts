import type { EntityLocks } from '../records/locks';
import type { AppConfig } from '../config/types';
import type { GraphEvents } from '../graph/events';
import type { LlmCache } from '../llm/cache/responses';
import type { ProviderRegistry } from '../llm/ports';
import type { Logger } from '../logger';
import type { Stores } from '../store/ports';
import type { CpuPool } from './offload/cpu-pool';
import type { IngestState } from './state';

/** What the ingestion pipeline needs from the runtime; the task and document services get the same (ServiceHost). */
export interface IngestDeps {
  config: AppConfig;
  stores: Stores;
  providers: ProviderRegistry;
  events: GraphEvents;
  log: Logger;
  entityLocks: EntityLocks;
  /** The runtime's LLM response cache (its calls in flight, its entries waiting to be written). */
  llmCache: LlmCache;
  /** Where parsing and chunking run: off the event loop that answers requests. */
  cpu: CpuPool;
  /** What ingestion keeps between documents, one per runtime (./state.ts). */
  ingest: IngestState;
}
