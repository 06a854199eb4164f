import { randomUUID } from 'node:crypto';
import type { WorkspaceRecord } from '../../domain/accounts';
import type { Scope, TaskRecord, VectorKind, VectorPoint } from '../../domain/types';
import { entityText, relationshipText } from '../../records/embed-text';
import type { EmbeddingProvider } from '../../llm/ports';
import type { TenancyDeps } from './deps';

const PAGE = 500;
const BATCH = 64;

interface Item {
  id: string;
  text: string;
  document_ids: string[];
}

type Models = Pick<WorkspaceRecord, 'embedding_provider' | 'embedding_model' | 'embedding_dimension'>;

/** What a workspace holds that has a vector: chunks, entities, relationships. */
async function itemsOf(deps: TenancyDeps, scope: Scope): Promise<Record<VectorKind, Item[]>> {
  const { documents, chunks, graph } = deps.stores;
  const out: Record<VectorKind, Item[]> = { chunk: [], entity: [], relationship: [] };
  for (const id of await documents.listIds(scope, {})) {
    for (const c of await chunks.listByDocument(scope, id)) out.chunk.push({ id: c.id, text: c.content, document_ids: [c.document_id] });
  }
  for (let offset = 0; ; offset += PAGE) {
    const page = await graph.listEntities(scope, { limit: PAGE, offset });
    out.entity.push(...page.items.map((e) => ({ id: e.id, text: entityText(e), document_ids: e.document_ids })));
    if (page.items.length < PAGE) break;
  }
  for (let offset = 0; ; offset += PAGE) {
    const page = await graph.listRelationships(scope, { limit: PAGE, offset });
    out.relationship.push(...page.items.map((r) => ({ id: r.id, text: relationshipText(r), document_ids: r.document_ids })));
    if (page.items.length < PAGE) break;
  }
  return out;
}

export function rebuildTask(id: string, owner: string, leaseMs: number): TaskRecord {
  const now = new Date().toISOString();
  return {
    id,
    type: 'rebuild_embeddings',
    status: 'running',
    progress: 0,
    document_id: '',
    mode: 'full',
    stages: { chunking: 'completed', extraction: 'completed', merging: 'completed', embedding: 'running' },
    stats: { chunks_processed: 0, chunks_total: 0, entities_found: 0, relationships_found: 0 },
    error: null,
    retry_of: null,
    created_at: now,
    started_at: now,
    updated_at: now,
    finished_at: null,
    lease_owner: owner,
    lease_expires_at: new Date(Date.now() + leaseMs).toISOString(),
    attempts: 0,
    not_before: null,
  };
}

/**
 * Re-embeds every chunk, entity and relationship of a workspace with new models, as a task with progress.
 * The new vectors are computed first while queries keep answering from the old ones; then, kind by kind, the
 * old vectors are replaced and the workspace switches to the new models. Records added while the rebuild ran
 * are embedded at the swap. Vectors of the new space are held in memory until the swap (4 bytes x dimension x
 * records, as float32).
 */
export async function runRebuild(deps: TenancyDeps, workspace: WorkspaceRecord, models: Models, task: TaskRecord): Promise<void> {
  const scope: Scope = { workspaceId: workspace.id };
  const { tasks, vectors, accounts } = deps.stores;
  const embedder = deps.providers().embedding(models.embedding_provider, models.embedding_model, models.embedding_dimension);
  const leaseMs = deps.config.taskLeaseMs;
  const touch = (patch: Partial<TaskRecord>) =>
    tasks.update(scope, task.id, {
      ...patch,
      updated_at: new Date().toISOString(),
      lease_expires_at: new Date(Date.now() + leaseMs).toISOString(),
    });
  try {
    const items = await itemsOf(deps, scope);
    const total = items.chunk.length + items.entity.length + items.relationship.length;
    await touch({
      stats: {
        chunks_processed: 0,
        chunks_total: items.chunk.length,
        entities_found: items.entity.length,
        relationships_found: items.relationship.length,
      },
    });
    const fresh: Record<VectorKind, Map<string, Float32Array>> = { chunk: new Map(), entity: new Map(), relationship: new Map() };
    let done = 0;
    for (const kind of ['chunk', 'entity', 'relationship'] as const) {
      await embedInto(embedder, items[kind], fresh[kind], async (n) => {
        done += n;
        await touch({
          progress: Math.min(99, Math.floor((done / Math.max(1, total)) * 100)),
          ...(kind === 'chunk'
            ? {
                stats: {
                  chunks_processed: fresh.chunk.size,
                  chunks_total: items.chunk.length,
                  entities_found: items.entity.length,
                  relationships_found: items.relationship.length,
                },
              }
            : {}),
        });
      });
    }
    // The swap: what was added meanwhile is embedded now; then the old vectors go and the new ones come in.
    const now = await itemsOf(deps, scope);
    for (const kind of ['chunk', 'entity', 'relationship'] as const) {
      await embedInto(
        embedder,
        now[kind].filter((i) => !fresh[kind].has(i.id)),
        fresh[kind],
        async () => undefined,
      );
      const points: VectorPoint[] = now[kind].map((i) => ({
        id: i.id,
        vector: Array.from(fresh[kind].get(i.id)!),
        document_ids: i.document_ids,
      }));
      await vectors.delete(scope, kind, [...new Set([...items[kind], ...now[kind]].map((i) => i.id))]);
      for (let i = 0; i < points.length; i += PAGE) await vectors.upsert(scope, kind, points.slice(i, i + PAGE));
    }
    await accounts.workspaces.update(workspace.id, { ...models, rebuild_task_id: null, updated_at: new Date().toISOString() });
    const finished = new Date().toISOString();
    await tasks.update(scope, task.id, {
      status: 'completed',
      progress: 100,
      stages: { ...task.stages, embedding: 'completed' },
      finished_at: finished,
      updated_at: finished,
      lease_owner: null,
      lease_expires_at: null,
    });
    deps.log.info({ workspace_id: workspace.id, task_id: task.id, vectors: total, ...models }, 'workspace embeddings rebuilt');
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    deps.log.error(
      { err, workspace_id: workspace.id, task_id: task.id },
      'embedding rebuild failed; the workspace keeps its old embeddings',
    );
    const finished = new Date().toISOString();
    await accounts.workspaces.update(workspace.id, { rebuild_task_id: null }).catch(() => undefined);
    await tasks
      .update(scope, task.id, {
        status: 'failed',
        error: `embedding rebuild failed: ${message}`,
        finished_at: finished,
        updated_at: finished,
        lease_owner: null,
        lease_expires_at: null,
      })
      .catch(() => undefined);
  }
}

async function embedInto(
  embedder: EmbeddingProvider,
  items: Item[],
  into: Map<string, Float32Array>,
  progress: (n: number) => Promise<void>,
): Promise<void> {
  for (let i = 0; i < items.length; i += BATCH) {
    const batch = items.slice(i, i + BATCH);
    const vectors = await embedder.embed(batch.map((b) => b.text));
    batch.forEach((b, j) => into.set(b.id, Float32Array.from(vectors[j])));
    await progress(batch.length);
  }
}

export function newRebuildTaskId(): string {
  return randomUUID();
}
