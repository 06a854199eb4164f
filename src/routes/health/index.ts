import { z } from 'zod';
import type { Api } from '../../http/api';
import type { Runtime } from '../../services/runtime';
import { checkComponents, checkHealth } from '../../services/health';

const healthSchema = z.object({
  status: z.enum(['healthy', 'degraded']),
  version: z.string(),
  storage_mode: z.enum(['memory', 'neo4j']),
  workspace_id: z.string().describe('The X-Workspace-ID header as sent, or "default"; health is public and resolves no workspace'),
  components: z.object({
    kv_storage: z.boolean(),
    vector_storage: z.boolean(),
    graph_storage: z.boolean(),
    llm_provider: z.boolean(),
    rate_limit_store: z.boolean().optional().describe('Redis, present when REDIS_URL is set'),
  }),
  llm_provider_name: z.string(),
  auth: z.object({
    enabled: z.boolean().describe('SERVICE_AUTH_ENABLED'),
    dev_mode: z.boolean().describe('SERVICE_DEV_MODE: the API is open without credentials'),
  }),
  warnings: z.array(z.string()).describe('Configuration an operator must know about, such as an open API'),
  schema: z.object({
    latest_version: z.number().int(),
    migrations_applied: z.number().int(),
    last_applied_at: z.string().nullable(),
  }),
  operational: z.object({
    observability: z.object({
      tracing_export_active: z.boolean(),
      tracing_api: z.enum(['auto', 'ingestion', 'otlp']).describe('SERVICE_TRACING_API'),
      tracing_api_resolved: z.enum(['ingestion', 'otlp']).nullable().describe('What the start-up probe chose; null without export'),
    }),
    budget_alerts: z
      .array(
        z.object({
          workspace_id: z.string(),
          period: z.enum(['day', 'week', 'month']),
          percent_used: z.number(),
          exhausted: z.boolean(),
        }),
      )
      .describe('Workspaces past the alert threshold of their budget this period (exhausted: refusing new work)'),
  }),
});

const readySchema = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.object({ database: z.enum(['ok', 'error']), llm_provider: z.enum(['ok', 'error']) }),
  shutting_down: z.boolean().optional().describe('Present and true while the service drains before it exits'),
});

const liveSchema = z.object({ status: z.literal('alive'), uptime_seconds: z.number() });

/** Probes: public, unlimited, live checks rather than constants. */
export function healthRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/health',
      access: 'public',
      tag: 'health',
      summary: 'Service health with live component checks',
      responses: { 200: { description: 'Health report', schema: healthSchema } },
    },
    async (ctx) => {
      ctx.body = await checkHealth(rt, ctx.get('X-Workspace-ID').trim().slice(0, 128) || 'default');
    },
  );

  const ready = async (ctx: Parameters<Parameters<Api['route']>[1]>[0]) => {
    const { graph_storage, vector_storage, kv_storage, rate_limit_store, llm_provider: llm } = await checkComponents(rt);
    const database = graph_storage && vector_storage && kv_storage && rate_limit_store !== false;
    const shuttingDown = ctx.state.drain?.draining === true;
    ctx.status = database && llm && !shuttingDown ? 200 : 503;
    ctx.body = {
      status: ctx.status === 200 ? 'ready' : 'not_ready',
      checks: { database: database ? 'ok' : 'error', llm_provider: llm ? 'ok' : 'error' },
      ...(shuttingDown ? { shutting_down: true } : {}),
    };
  };
  for (const path of ['/ready', '/health/ready']) {
    api.route(
      {
        method: 'get',
        path,
        access: 'public',
        tag: 'health',
        summary: 'Readiness: 200 when traffic can be accepted, 503 otherwise',
        responses: {
          200: { description: 'Ready', schema: readySchema },
          503: { description: 'Not ready', schema: readySchema },
        },
      },
      ready,
    );
  }
  for (const path of ['/live', '/health/live']) {
    api.route(
      {
        method: 'get',
        path,
        access: 'public',
        tag: 'health',
        summary: 'Liveness: 200 while the process runs',
        responses: { 200: { description: 'Alive', schema: liveSchema } },
      },
      (ctx) => {
        ctx.body = { status: 'alive', uptime_seconds: Math.round(process.uptime()) };
      },
    );
  }
}
