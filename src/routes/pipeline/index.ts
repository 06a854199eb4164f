import { z } from 'zod';
import type { Api } from '../../http/api';
import type { Runtime } from '../../services/runtime';

const TAG = 'pipeline';

const statusSchema = z.object({
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
});

const metricsSchema = z.object({
  queue: z.object({ pending: z.number().int(), running: z.number().int(), failed: z.number().int() }),
  throughput: z
    .object({ last_minute: z.number().int(), last_hour: z.number().int(), last_day: z.number().int() })
    .describe('Tasks completed in each window'),
  latency: z
    .object({ p50_ms: z.number().int(), p95_ms: z.number().int(), p99_ms: z.number().int() })
    .describe('Queued-to-finished time of completed tasks (nearest rank; 0 when none)'),
});

/** The processing pipeline as a whole: status, bulk cancel, queue metrics. */
export function pipelineRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/pipeline/status',
      tag: TAG,
      summary: 'Pipeline status, workers and recent rates',
      responses: { 200: { description: 'Pipeline status', schema: statusSchema } },
    },
    async (ctx) => {
      ctx.body = await rt.tasks.pipelineStatus(ctx.state.scope);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/pipeline/cancel',
      tag: TAG,
      summary: 'Cancel every pending task of the workspace',
      description: 'Running tasks continue; cancel them one by one with POST /tasks/{id}/cancel.',
      responses: {
        200: { description: 'Cancelled', schema: z.object({ cancelled: z.number().int(), message: z.string() }) },
      },
    },
    async (ctx) => {
      const cancelled = await rt.tasks.cancelPending(ctx.state.scope);
      ctx.body = { cancelled, message: `cancelled ${cancelled} pending task(s)` };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/pipeline/queue-metrics',
      tag: TAG,
      summary: 'Queue sizes, throughput and latency percentiles',
      responses: { 200: { description: 'Queue metrics', schema: metricsSchema } },
    },
    async (ctx) => {
      ctx.body = await rt.tasks.queueMetrics(ctx.state.scope);
    },
  );
}
