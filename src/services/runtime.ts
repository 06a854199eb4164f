import type Redis from 'ioredis';
import type { AppConfig } from '../config/types';
import type { AnalyticsService } from '../graph/analytics/service';
import type { GraphEvents } from '../graph/events';
import type { GraphService } from '../graph/service';
import type { CpuPool } from '../ingest/offload/cpu-pool';
import type { LineageService } from '../lineage/service';
import type { LlmCache } from '../llm/cache/responses';
import type { ProviderRegistry } from '../llm/ports';
import type { CallSlots } from '../llm/semaphore';
import type { TracingStatus } from '../llm/tracing';
import type { Logger } from '../logger';
import type { QueryService } from '../retrieval';
import type { Stores } from '../store/ports';
import type { AuthService, BootstrapResult } from './auth';
import type { ChatService, ConversationService, FolderService } from './chat';
import type { CommunityService } from './communities';
import type { CompatService } from './compat';
import type { CostService } from './costs';
import type { DocumentService } from './documents';
import type { LlmHealth } from './llm-health';
import type { IntegrityService } from './integrity';
import type { ModelService } from './models';
import type { SettingsService } from './settings';
import type { ResolutionService } from './resolution';
import type { TaskService } from './tasks';
import type { TenancyService } from './tenancy';
import type { SavedViewService } from './views';
import type { IngestState } from '../ingest/state';

/**
 * What the composition root (`src/runtime.ts`) builds and the routes use: configuration, stores and services.
 * Declared here, below the routes, so that routes depend on services and never on the composition root.
 */
export interface Runtime {
  config: AppConfig;
  log: Logger;
  stores: Stores;
  /** The one provider registry every service uses (RuntimeOptions.providers wraps it). */
  readonly providers: ProviderRegistry;
  events: GraphEvents;
  graph: GraphService;
  lineage: LineageService;
  query: QueryService;
  chat: ChatService;
  conversations: ConversationService;
  /** Folders of conversations. */
  folders: FolderService;
  /** Saved views of the graph explorer, per user and workspace. */
  views: SavedViewService;
  /** The local-runtime (Ollama) and OpenAI-compatible APIs. */
  compat: CompatService;
  tasks: TaskService;
  documents: DocumentService;
  /** Orphans of every kind in a workspace's graph and vectors (GET /admin/integrity, npm run verify). */
  integrity: IntegrityService;
  /** Entity resolution settings, dry runs, reviewed merges and splits. */
  resolution: ResolutionService;
  /** Communities of each workspace graph, their reports and the background recompute. */
  communities: CommunityService;
  /** Paths, neighbourhoods, centralities, co-mentions, community bridges, shared documents. */
  analytics: AnalyticsService;
  redis: Redis | null;
  /** Worker threads for parsing and chunking, off the event loop that answers requests. */
  cpu: CpuPool;
  /** What ingestion keeps between documents; settled on shutdown. */
  ingest: IngestState;
  /** The LLM and embedding call slots every provider of this runtime shares. */
  slots: CallSlots;
  /** The LLM response cache of this runtime: its calls in flight, its entries waiting to be written. */
  llmCache: LlmCache;
  auth: AuthService;
  tenancy: TenancyService;
  /** The last check of the default LLM provider that `/ready` and `/health` report. */
  llmHealth: LlmHealth;
  /** The model catalog, provider checks and the start-up probe of the default providers. */
  models: ModelService;
  /** Runtime settings (GET/PATCH /settings). */
  settings: SettingsService;
  /** Usage records, cost summaries and budgets. */
  costs: CostService;
  /** Where traces go (docs/api.md §1.4); the secret key is not part of it. */
  tracing: TracingStatus;
  /** Runs `fn`, and the work it starts, with this runtime's trace backend (each request runs in it). */
  traced<T>(fn: () => T): T;
  /** What start-up did about the first administrator (a generated password is printed once by main). */
  bootstrap: BootstrapResult;
  /** Start background work (task workers); tests may create a runtime without starting it. */
  start(): Promise<void>;
  close(): Promise<void>;
}
