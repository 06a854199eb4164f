import { z } from 'zod';
import type { PipelineStatus, QueueMetrics } from '../../services/tasks';

/** Pipeline answers: the spec's fields, with EdgeQuake's names beside them. */

export const statusSchema = z.object({
  status: z.enum(['running', 'idle', 'paused']).describe('`paused` when workers are stopped while tasks wait'),
  active_tasks: z.number().int().describe('Running tasks of the workspace'),
  queue_depth: z.number().int().describe('Pending tasks of the workspace'),
  workers: z.object({ total: z.number().int(), busy: z.number().int(), idle: z.number().int() }).describe('Workers of this instance'),
  rates: z
    .object({
      documents_per_minute: z.number(),
      chunks_per_minute: z.number(),
      embeddings_per_minute: z.number(),
    })
    .describe('Completions of this workspace in the last minute on this instance'),
  is_busy: z.boolean().describe('Tasks pending or running'),
  total_documents: z.number().int(),
  processed_documents: z.number().int().describe('Completed documents'),
  pending_tasks: z.number().int(),
  processing_tasks: z.number().int(),
  completed_tasks: z.number().int(),
  failed_tasks: z.number().int(),
  queued_tasks: z.number().int().describe('= queue_depth'),
  worker_count: z.number().int().describe('= workers.total'),
});

export const metricsSchema = z.object({
  queue: z.object({ pending: z.number().int(), running: z.number().int(), failed: z.number().int() }),
  throughput: z
    .object({ last_minute: z.number().int(), last_hour: z.number().int(), last_day: z.number().int() })
    .describe('Tasks completed in each window'),
  latency: z
    .object({ p50_ms: z.number().int(), p95_ms: z.number().int(), p99_ms: z.number().int() })
    .describe('Queued-to-finished time of completed tasks (nearest rank; 0 when none)'),
  queue_depth: z.number().int().describe('= queue.pending'),
  processing: z.number().int().describe('= queue.running'),
  completed_last_hour: z.number().int().describe('= throughput.last_hour'),
  failed_last_hour: z.number().int(),
  avg_processing_time_ms: z.number().int().describe('Mean queued-to-finished time of completed tasks'),
  estimated_wait_time_ms: z.number().int().describe('Pending tasks times the mean time, over the workers of this instance'),
});

export function presentPipelineStatus(s: PipelineStatus) {
  const { counts, ...spec } = s;
  return {
    ...spec,
    is_busy: counts.pending + counts.running > 0,
    total_documents: counts.documents,
    processed_documents: counts.documents_completed,
    pending_tasks: counts.pending,
    processing_tasks: counts.running,
    completed_tasks: counts.completed,
    failed_tasks: counts.failed,
    queued_tasks: counts.pending,
    worker_count: s.workers.total,
  };
}

export function presentQueueMetrics(m: QueueMetrics) {
  const { failed_last_hour, mean_ms, workers, ...spec } = m;
  return {
    ...spec,
    queue_depth: m.queue.pending,
    processing: m.queue.running,
    completed_last_hour: m.throughput.last_hour,
    failed_last_hour,
    avg_processing_time_ms: mean_ms,
    estimated_wait_time_ms: Math.round((m.queue.pending * mean_ms) / Math.max(1, workers)),
  };
}
