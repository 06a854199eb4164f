import type { Runtime } from './runtime';

const LLM_CHECK_TTL_MS = 5_000;

interface LlmCheck {
  at: number;
  ok: boolean;
  provider: string;
  refreshing: Promise<boolean> | null;
}

const llmChecks = new WeakMap<Runtime, LlmCheck>();

async function checkLlm(rt: Runtime, provider: string): Promise<boolean> {
  const results = await rt.providers.check().catch(() => []);
  const ok = results.some((r) => r.name === provider && r.status === 'healthy');
  llmChecks.set(rt, { at: Date.now(), ok, provider, refreshing: null });
  return ok;
}

/**
 * Whether the default provider answers. Only the first check of a provider is waited for; after that a probe
 * answers with the last result and a check older than LLM_CHECK_TTL_MS is redone in the background, so a probe
 * never waits on a provider busy with ingestion.
 */
async function defaultLlmHealthy(rt: Runtime): Promise<boolean> {
  const provider = rt.providers.defaultLlmProviderName();
  const last = llmChecks.get(rt);
  if (!last || last.provider !== provider) return checkLlm(rt, provider);
  if (Date.now() - last.at >= LLM_CHECK_TTL_MS && !last.refreshing) last.refreshing = checkLlm(rt, provider);
  return last.ok;
}

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
 * of their own, not the pool ingestion uses), the provider from its last check (`defaultLlmHealthy`).
 */
export async function checkComponents(rt: Runtime) {
  const [stores, llm, redis] = await Promise.all([
    rt.stores.health().catch(() => ({ kv_storage: false, vector_storage: false, graph_storage: false })),
    defaultLlmHealthy(rt),
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
