import type { Runtime } from './runtime';

const REDIS_PING_TIMEOUT_MS = 1_000;

/** Redis holds the shared rate-limit counters when configured; undefined when it is not. */
async function redisHealthy(rt: Runtime): Promise<boolean | undefined> {
  if (!rt.redis) return undefined;
  const timeout = new Promise<false>((resolve) => setTimeout(() => resolve(false), REDIS_PING_TIMEOUT_MS).unref());
  return Promise.race([
    rt.redis.ping().then(
      (r) => r === 'PONG',
      () => false,
    ),
    timeout,
  ]);
}

/**
 * The components `/ready` and `/health` report: the stores and Redis checked live (the stores over a connection
 * of their own, not the pool ingestion uses), the provider from its last check (LlmHealth).
 */
export async function checkComponents(rt: Runtime) {
  const [stores, llm, redis] = await Promise.all([
    rt.stores.health().catch(() => ({ kv_storage: false, vector_storage: false, graph_storage: false })),
    rt.llmHealth.healthy(),
    redisHealthy(rt),
  ]);
  return { ...stores, llm_provider: llm, ...(redis === undefined ? {} : { rate_limit_store: redis }) };
}

/** `/health`: the components (`checkComponents`), the schema as last read, configuration warnings and budget alerts. */
export async function checkHealth(rt: Runtime, workspaceId: string) {
  const [components, schema] = await Promise.all([
    checkComponents(rt),
    rt.stores.schema().catch(() => ({ latest_version: 0, migrations_applied: 0, last_applied_at: null })),
  ]);
  const llm = components.llm_provider;
  const alerts = rt.costs.alerts();
  return {
    status: Object.values(components).every(Boolean) ? ('healthy' as const) : ('degraded' as const),
    version: rt.config.version,
    storage_mode: rt.config.storage.mode,
    workspace_id: workspaceId,
    components,
    llm_provider_name: rt.providers.defaultLlmProviderName(),
    schema,
    auth: { enabled: rt.config.auth.enabled, dev_mode: rt.config.auth.devMode },
    warnings: [
      ...(rt.auth.open
        ? [
            'the API is open: requests need no credentials (SERVICE_DEV_MODE=true or SERVICE_AUTH_ENABLED=false); never run it like this in production',
          ]
        : []),
      // The default provider did not answer the start-up probe and does not answer now either.
      ...(llm ? [] : rt.models.startupWarnings()),
      ...alerts.map((a) =>
        a.exhausted
          ? `workspace ${a.workspace_id} has spent its ${a.period} budget: new ingestion and queries are refused`
          : `workspace ${a.workspace_id} has used ${a.percent_used}% of its ${a.period} budget`,
      ),
    ],
    operational: {
      observability: {
        tracing_export_active: rt.tracing.export_active,
        tracing_api: rt.tracing.api,
        tracing_api_resolved: rt.tracing.api_resolved,
      },
      budget_alerts: alerts.map(({ workspace_id, period, percent_used, exhausted }) => ({ workspace_id, period, percent_used, exhausted })),
    },
  };
}
