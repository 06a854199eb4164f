import { z } from 'zod';
import { TASK_STATUSES, type TaskRecord } from '../../domain/types';

const timestamp = z.string().describe('ISO 8601 timestamp');
const stageStatus = z.enum(['pending', 'running', 'completed']);

export const taskListItemSchema = z.object({
  id: z.string(),
  type: z.enum(['document_processing', 'rebuild_embeddings']),
  status: z.enum(TASK_STATUSES),
  progress: z.number().int().describe('Percent, 0-100'),
  document_id: z.string().describe('Empty for a workspace task (rebuild_embeddings)'),
  started_at: timestamp.nullable(),
  updated_at: timestamp,
  track_id: z.string().describe('= id (EdgeQuake name: GET /documents/track/{track_id})'),
  task_type: z.literal('document_processing').describe('= type'),
  created_at: timestamp,
  error_message: z.string().nullable().describe('= error'),
});

export const taskDetailSchema = taskListItemSchema.extend({
  mode: z.enum(['full', 'retry_chunks']).describe('A full run, or a retry of the failed chunks only'),
  stages: z.object({ chunking: stageStatus, extraction: stageStatus, merging: stageStatus, embedding: stageStatus }),
  stats: z.object({
    chunks_processed: z.number().int(),
    chunks_total: z.number().int(),
    entities_found: z.number().int(),
    relationships_found: z.number().int(),
  }),
  error: z.string().nullable(),
  retry_of: z.string().nullable().describe('The task this one retries'),
  attempts: z.number().int().describe('Runs stopped by an unreachable dependency and put back in the queue'),
  next_attempt_at: timestamp.nullable().describe('A task put back after an outage is not run before this time'),
  finished_at: timestamp.nullable(),
  completed_at: timestamp.nullable().describe('= finished_at'),
});

export function presentTaskListItem(task: TaskRecord) {
  return {
    id: task.id,
    type: task.type,
    status: task.status,
    progress: task.progress,
    document_id: task.document_id,
    started_at: task.started_at,
    updated_at: task.updated_at,
    // EdgeQuake's names beside the spec's.
    track_id: task.id,
    task_type: task.type,
    created_at: task.created_at,
    error_message: task.error,
  };
}

/** The answer of a cancel or retry, with EdgeQuake's `track_id` (the task to follow) beside `id`. */
export function presentTaskAction(action: { id: string; status: string; message: string }) {
  return { ...action, track_id: action.id };
}

export function presentTaskDetail(task: TaskRecord) {
  return {
    ...presentTaskListItem(task),
    mode: task.mode,
    stages: { ...task.stages },
    stats: { ...task.stats },
    error: task.error,
    retry_of: task.retry_of,
    attempts: task.attempts,
    next_attempt_at: task.status === 'pending' ? task.not_before : null,
    finished_at: task.finished_at,
    completed_at: task.finished_at,
  };
}
