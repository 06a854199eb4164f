import { apiUrl, getJson } from '../api/client';
import type { TaskDetail, TaskList } from '../api/types';

const STAGES = ['chunking', 'extraction', 'merging', 'embedding'] as const;

/** Where a document's latest task stands: its status, percent and the stage it is in. */
export interface TaskProgress {
  taskId: string;
  status: TaskDetail['status'];
  progress: number;
  stage: string | null;
  stages: TaskDetail['stages'] | null;
  chunks: string | null;
  /** The chunks the document was cut into, once chunking is done (the document's own count is set at the end). */
  chunksTotal: number | null;
  error: string | null;
}

/**
 * The latest task of each document (from `/tasks`), with stage detail (`/tasks/{id}`) for the tasks still
 * pending or running.
 */
export async function taskProgressByDocument(signal: AbortSignal): Promise<Map<string, TaskProgress>> {
  const list = await getJson<TaskList>(apiUrl('/api/v1/tasks', {}, { limit: 500 }), signal);
  const latest = new Map<string, TaskList['tasks'][number]>();
  for (const task of list.tasks) if (!latest.has(task.document_id)) latest.set(task.document_id, task); // newest first
  const open = [...latest.values()].filter((t) => t.status === 'pending' || t.status === 'running').slice(0, 20);
  const details = await Promise.all(
    open.map((t) => getJson<TaskDetail>(apiUrl('/api/v1/tasks/{id}', { id: t.id }), signal).catch(() => null)),
  );
  const byId = new Map(details.filter((d): d is TaskDetail => d !== null).map((d) => [d.id, d]));
  const out = new Map<string, TaskProgress>();
  for (const [documentId, task] of latest) {
    const detail = byId.get(task.id) ?? null;
    const stage = detail
      ? (STAGES.find((s) => detail.stages[s] === 'running') ?? STAGES.find((s) => detail.stages[s] === 'pending') ?? null)
      : null;
    out.set(documentId, {
      taskId: task.id,
      status: task.status,
      progress: task.progress,
      stage,
      stages: detail?.stages ?? null,
      chunks: detail ? `${detail.stats.chunks_processed}/${detail.stats.chunks_total} chunks` : null,
      chunksTotal: detail ? detail.stats.chunks_total : null,
      error: detail?.error ?? null,
    });
  }
  return out;
}
