import { AsyncLocalStorage } from 'node:async_hooks';

/** The models a workspace is configured with (docs/api.md §4.6). */
export interface WorkspaceModels {
  llm_provider: string;
  llm_model: string;
  embedding_provider: string;
  embedding_model: string;
  embedding_dimension: number;
}

const current = new AsyncLocalStorage<WorkspaceModels>();

/**
 * Runs `work` with the workspace's models as the defaults of every provider call made within it (the request
 * handler, or a task's run): a call that names no provider or model gets the workspace's, so that ingestion,
 * retrieval and edits of one workspace never mix embedding spaces. Resolution order, in the registry: the
 * request's own choice, then these, then the service's configuration.
 */
export function withWorkspaceModels<T>(models: WorkspaceModels | null, work: () => T): T {
  return models ? current.run(models, work) : work();
}

export function workspaceModels(): WorkspaceModels | undefined {
  return current.getStore();
}
