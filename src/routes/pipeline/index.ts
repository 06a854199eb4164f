import { z } from 'zod';
import type { Api } from '../../http/api';
import type { Runtime } from '../../services/runtime';
import { metricsSchema, presentPipelineStatus, presentQueueMetrics, statusSchema } from './present';

const TAG = 'pipeline';

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
      ctx.body = presentPipelineStatus(await rt.tasks.pipelineStatus(ctx.state.scope));
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
      ctx.body = presentQueueMetrics(await rt.tasks.queueMetrics(ctx.state.scope));
    },
  );
}
