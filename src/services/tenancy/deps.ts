import type { AppConfig } from '../../config/types';
import type { WorkspaceStats } from '../../graph/workspace-stats';
import type { Scope, TaskRecord } from '../../domain/types';
import type { LlmCache } from '../../llm/cache/responses';
import type { ProviderRegistry } from '../../llm/ports';
import type { Logger } from '../../logger';
import type { Stores } from '../../store/ports';

export interface TenancyDeps {
  config: AppConfig;
  stores: Stores;
  providers: () => ProviderRegistry;
  log: Logger;
  /** The runtime's LLM response cache: its waiting entries are written before a workspace's data goes. */
  llmCache: LlmCache;
  /** The §4.9 statistics of a workspace. */
  stats(scope: Scope): Promise<WorkspaceStatsBody>;
  /** Stops a workspace's queued and running tasks before its data goes. */
  stopTasks(scope: Scope): Promise<void>;
  /** Queues every finished document of a workspace for a full run with its current models. */
  reprocessAll(scope: Scope): Promise<{ count: number; task_ids: string[] }>;
  /** Tasks of a workspace still queued or running. */
  liveTasks(scope: Scope): Promise<TaskRecord[]>;
}

export type WorkspaceStatsBody = WorkspaceStats;
