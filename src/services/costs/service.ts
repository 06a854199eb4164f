import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../../config/types';
import { type BudgetPeriod, type BudgetRecord, DAY_MS, type UsageRecord, periodBounds } from '../../domain/costs';
import { BudgetExhaustedError, InvalidInputError } from '../../domain/errors';
import type { Scope } from '../../domain/types';
import { type UsageEvent, type UsageRecorder, runWithUsageContext } from '../../llm/usage';
import { workspaceModels } from '../../llm/workspace-models';
import type { Logger } from '../../logger';
import { claimOnce } from '../../records/leases';
import { type CostStore, type LockStore, type TimeRange, type UsageTotals, emptyTotals } from '../../store/ports';
import { type BudgetStatus, DEFAULT_ALERT_THRESHOLD, DEFAULT_PERIOD, budgetStatus } from './budget';
import { type Granularity, type HistoryBucket, bucketRange, bucketize } from './history';
import { type Estimate, estimateIngestion } from './estimate';
import { catalogModel, categoryOf, operationOf, priceOf, roundUsd } from './pricing';

export interface CostDeps {
  /** Read at each use: estimates follow the runtime settings of the moment. */
  config: AppConfig;
  costs: CostStore;
  log: Logger;
  /** The tenant a workspace belongs to (its record), for the roll-up per tenant. */
  tenantOf: (workspaceId: string) => Promise<string | null>;
  /** The clock (tests move it); `new Date()` by default. */
  now?: () => Date;
  /** Where an alert is claimed, so that of the instances sharing the database one raises it; each raises its own without. */
  locks?: LockStore;
}

export interface CostSummary {
  workspace_id: string;
  period: BudgetPeriod;
  period_start: string;
  period_end: string;
  total_cost_usd: number;
  breakdown: { extraction: number; embedding: number; queries: number };
  usage: {
    documents_processed: number;
    queries_executed: number;
    tokens_used: number;
    input_tokens: number;
    output_tokens: number;
    calls: number;
  };
}

export interface BudgetAlert {
  workspace_id: string;
  tenant_id: string | null;
  period: BudgetPeriod;
  period_start: string;
  percent_used: number;
  exhausted: boolean;
}

export interface PricingItem {
  id: string;
  name: string;
  provider: string;
  model_type: 'llm' | 'embedding';
  /** Per 1,000 input tokens; for embedding models, per 1,000 embedded tokens. */
  input_cost_per_1k_tokens: number;
  /** LLMs only. */
  output_cost_per_1k_tokens?: number;
  deprecated: boolean;
  provider_enabled: boolean;
  /** EdgeQuake's names for `name` and the two prices (docs/api.md §10). */
  model: string;
  input_cost_per_1k: number;
  output_cost_per_1k: number | null;
  currency: 'USD';
}

export interface EstimateRequest {
  content_length: number;
  /** `provider/model` or a model name; the workspace's model by default. */
  llm_model?: string;
  embedding_model?: string;
  /** EdgeQuake's names for the LLM (docs/api.md §10): a model name, its provider, or both. */
  model?: string;
  provider?: string;
}

/** The estimate in the spec's terms, with the LLM named as EdgeQuake names it (`model`, `provider`) beside. */
export type SpecEstimate = Estimate & { llm_model: string; embedding_model: string; model: string; provider: string };

/**
 * The estimate as EdgeQuake's SDK reads it (docs/api.md §10): `estimated_cost_usd` and `estimated_tokens` are single
 * numbers there, so the spec's breakdowns move to `cost_breakdown_usd` and `token_breakdown`.
 */
export type EdgeQuakeEstimate = Omit<SpecEstimate, 'estimated_tokens' | 'estimated_cost_usd'> & {
  estimated_cost_usd: number;
  estimated_tokens: number;
  cost_breakdown_usd: Estimate['estimated_cost_usd'];
  token_breakdown: Estimate['estimated_tokens'];
};

/** The priced total: the tokens of extraction and embedding (the typical query is not part of the cost either). */
function inEdgeQuakeTerms(estimate: SpecEstimate): EdgeQuakeEstimate {
  const { estimated_tokens: tokens, estimated_cost_usd: cost, ...rest } = estimate;
  return {
    ...rest,
    estimated_cost_usd: cost.total,
    estimated_tokens: tokens.extraction + tokens.embedding,
    cost_breakdown_usd: cost,
    token_breakdown: tokens,
  };
}

export interface BudgetPatch {
  budget_usd?: number | null;
  alert_threshold?: number;
  period?: BudgetPeriod;
}

/** Records written at most this long after their call; a budget check waits for what is pending. */
const FLUSH_DELAY_MS = 50;

const scopeKey = (scope: Scope) => `${scope.tenantId ?? ''}/${scope.workspaceId}`;

/**
 * Cost accounting (docs/api.md §4.8): prices every successful provider call from the model catalog, stores it as a
 * usage record of its workspace, keeps the workspace's budget and refuses new work once it is spent.
 */
export function createCostService(deps: CostDeps) {
  const { costs, log } = deps;
  const now = deps.now ?? (() => new Date());
  const pending = new Map<string, { scope: Scope; records: UsageRecord[] }>();
  let flushing: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
  const tenants = new Map<string, string | null>();
  async function tenantOf(workspaceId: string): Promise<string | null> {
    if (!tenants.has(workspaceId)) tenants.set(workspaceId, await deps.tenantOf(workspaceId));
    return tenants.get(workspaceId) ?? null;
  }
  /** Alerts raised this period, by workspace: logged once, listed by /health. */
  const alerts = new Map<string, BudgetAlert>();

  function toRecord(e: UsageEvent, workspaceId: string): UsageRecord {
    return {
      id: randomUUID(),
      workspace_id: workspaceId,
      tenant_id: e.tenant_id ?? null,
      operation: operationOf(e),
      category: categoryOf(e),
      provider: e.provider,
      model: e.model,
      kind: e.kind,
      input_tokens: e.input_tokens,
      output_tokens: e.output_tokens,
      cost_usd: priceOf(deps.config.catalog, e),
      created_at: (e.at ?? now()).toISOString(),
      document_id: e.document_id ?? null,
      query_id: e.query_id ?? null,
    };
  }

  const recorder: UsageRecorder = {
    record(e) {
      // Calls made for no workspace (a provider check) are not anyone's cost.
      if (!e.workspace_id) return;
      const scope: Scope = e.tenant_id ? { workspaceId: e.workspace_id, tenantId: e.tenant_id } : { workspaceId: e.workspace_id };
      const key = scopeKey(scope);
      const batch = pending.get(key) ?? { scope, records: [] };
      batch.records.push(toRecord(e, e.workspace_id));
      pending.set(key, batch);
      timer ??= setTimeout(() => void flush(), FLUSH_DELAY_MS);
    },
  };

  /** Writes what is pending; a write that fails is logged and dropped (accounting never fails the work). */
  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const batches = [...pending.values()];
    pending.clear();
    flushing = flushing.then(async () => {
      for (const { scope, records } of batches) {
        try {
          const tenant = scope.tenantId ?? (await tenantOf(scope.workspaceId));
          for (const r of records) r.tenant_id = tenant;
          await costs.add(scope, records);
          await checkAlert(scope);
        } catch (err) {
          log.warn(
            { err: (err as Error).message, workspace_id: scope.workspaceId, records: records.length },
            'usage records could not be written',
          );
        }
      }
    });
    return flushing;
  }

  async function budgetOf(scope: Scope): Promise<BudgetRecord | null> {
    return costs.getBudget(scope);
  }

  function periodRange(period: BudgetPeriod, at: Date): TimeRange {
    const { start, end } = periodBounds(period, at);
    return { from: start.toISOString(), to: end.toISOString() };
  }

  async function status(scope: Scope): Promise<BudgetStatus> {
    const at = now();
    const budget = await budgetOf(scope);
    const totals = await costs.totals(scope, periodRange(budget?.period ?? DEFAULT_PERIOD, at));
    return budgetStatus(budget, totals.cost_usd, at);
  }

  /**
   * Whether this instance raises the alert: the first of the instances sharing the database to claim it (per budget
   * as last set, period and level) does. A claim that cannot be made raises it here: twice rather than never.
   */
  async function claimAlert(scope: Scope, budget: BudgetRecord, s: BudgetStatus): Promise<boolean> {
    if (!deps.locks) return true;
    const key = `budget-alert:${budget.updated_at}:${s.period_start}:${s.exhausted ? 'spent' : 'threshold'}`;
    return claimOnce(deps.locks, scope, key, Date.parse(s.period_end) + DAY_MS).catch(() => true);
  }

  /**
   * Logs a warning the first time a workspace's spend crosses its alert threshold (and its budget) in a period:
   * once over every instance sharing the database (each lists it in /health once it has seen it).
   */
  async function checkAlert(scope: Scope): Promise<void> {
    const budget = await budgetOf(scope);
    if (!budget || budget.budget_usd === null) return;
    const s = await status(scope);
    const key = scopeKey(scope);
    const known = alerts.get(key);
    const sameperiod = known?.period_start === s.period_start;
    if (!s.alert) {
      if (known && !sameperiod) alerts.delete(key);
      return;
    }
    if (sameperiod && known.exhausted === s.exhausted) {
      known.percent_used = s.percent_used ?? 0;
      return;
    }
    const alert: BudgetAlert = {
      workspace_id: scope.workspaceId,
      tenant_id: scope.tenantId ?? (await tenantOf(scope.workspaceId)),
      period: s.period,
      period_start: s.period_start,
      percent_used: s.percent_used ?? 0,
      exhausted: s.exhausted,
    };
    alerts.set(key, alert);
    if (!(await claimAlert(scope, budget, s))) return;
    log.warn(
      {
        workspace_id: scope.workspaceId,
        tenant_id: scope.tenantId,
        spent_usd: s.spent_usd,
        budget_usd: s.budget_usd,
        percent_used: s.percent_used,
        period: s.period,
      },
      s.exhausted
        ? `the ${s.period} budget of workspace ${scope.workspaceId} is spent: new ingestion and queries are refused until ${s.period_end} or until the budget is raised`
        : `workspace ${scope.workspaceId} has used ${s.percent_used}% of its ${s.period} budget (alert threshold ${s.alert_threshold * 100}%)`,
    );
  }

  function summaryOf(totals: UsageTotals, workspaceId: string, period: BudgetPeriod, range: TimeRange): CostSummary {
    return {
      workspace_id: workspaceId,
      period,
      period_start: range.from,
      period_end: range.to,
      total_cost_usd: roundUsd(totals.cost_usd),
      breakdown: {
        extraction: roundUsd(totals.by_category.extraction),
        embedding: roundUsd(totals.by_category.embedding),
        queries: roundUsd(totals.by_category.queries),
      },
      usage: {
        documents_processed: totals.documents,
        queries_executed: totals.queries,
        tokens_used: totals.input_tokens + totals.output_tokens,
        input_tokens: totals.input_tokens,
        output_tokens: totals.output_tokens,
        calls: totals.calls,
      },
    };
  }

  /** A catalog model of the kind by `provider/model` or by name; the workspace's (or the service's) by default. */
  function resolveModel(kind: 'llm' | 'embedding', field: string, requested: string | undefined) {
    const scoped = workspaceModels();
    const fallback =
      kind === 'llm'
        ? { provider: scoped?.llm_provider ?? deps.config.llm.provider, model: scoped?.llm_model ?? deps.config.llm.model }
        : {
            provider: scoped?.embedding_provider ?? deps.config.embedding.provider,
            model: scoped?.embedding_model ?? deps.config.embedding.model,
          };
    if (requested === undefined) return { ...fallback, found: catalogModel(deps.config.catalog, fallback.provider, fallback.model) };
    const slash = requested.indexOf('/');
    const candidates = deps.config.catalog.providers.flatMap((p) =>
      p.models.filter((m) => m.model_type === kind).map((m) => ({ provider: p.name, model: m.name, found: m })),
    );
    const match =
      candidates.find((c) => `${c.provider}/${c.model}` === requested) ??
      (slash < 0
        ? (candidates.find((c) => c.provider === fallback.provider && c.model === requested) ??
          candidates.find((c) => c.model === requested))
        : undefined);
    if (!match)
      throw InvalidInputError.field(
        field,
        `'${requested}' is not a ${kind === 'llm' ? 'LLM' : 'embedding'} model of the catalog (GET /api/v1/pipeline/costs/pricing lists them)`,
      );
    return match;
  }

  /**
   * The LLM named in EdgeQuake's terms: `provider` and `model` together are `provider/model`; `model` alone is a
   * name as `llm_model` takes it; `provider` alone is the workspace's LLM when it is that provider's, else the
   * provider's first LLM in the catalog.
   */
  function resolveEdgeQuakeModel(model: string | undefined, provider: string | undefined) {
    if (provider === undefined) return resolveModel('llm', 'model', model);
    if (model !== undefined) return resolveModel('llm', 'model', `${provider}/${model}`);
    const current = resolveModel('llm', 'provider', undefined);
    if (current.provider === provider) return current;
    const first = deps.config.catalog.providers.find((p) => p.name === provider)?.models.find((m) => m.model_type === 'llm');
    if (!first)
      throw InvalidInputError.field(
        'provider',
        `'${provider}' is not a provider of an LLM in the catalog (GET /api/v1/pipeline/costs/pricing lists them)`,
      );
    return { provider, model: first.name, found: first };
  }

  return {
    recorder,
    flush,

    /** Runs `work` so that its provider calls are recorded as the query `queryId`'s. */
    asQuery<T>(queryId: string, work: () => T): T {
      return runWithUsageContext({ query_id: queryId }, work);
    },

    /** Prices of every catalog model (docs/api.md §4.8). */
    pricing(): PricingItem[] {
      return deps.config.catalog.providers.flatMap((p) =>
        p.models.map((m) => {
          const input = m.model_type === 'embedding' ? m.cost.embedding_per_1k : m.cost.input_per_1k;
          const output = m.model_type === 'llm' ? { output_cost_per_1k_tokens: m.cost.output_per_1k } : {};
          return {
            id: `${p.name}/${m.name}`,
            name: m.name,
            provider: p.name,
            model_type: m.model_type,
            input_cost_per_1k_tokens: input,
            ...output,
            deprecated: m.deprecated,
            provider_enabled: p.enabled,
            // EdgeQuake's names (docs/api.md §10).
            model: m.name,
            input_cost_per_1k: input,
            output_cost_per_1k: m.model_type === 'llm' ? m.cost.output_per_1k : null,
            currency: 'USD' as const,
          };
        }),
      );
    },

    /**
     * What ingesting `content_length` characters would cost with the given (or the workspace's) models. A request
     * that names the LLM in EdgeQuake's terms (`model`, `provider`) gets the answer in EdgeQuake's terms.
     */
    estimate(request: EstimateRequest): SpecEstimate | EdgeQuakeEstimate {
      const edgeQuake = request.model !== undefined || request.provider !== undefined;
      const llm = edgeQuake ? resolveEdgeQuakeModel(request.model, request.provider) : resolveModel('llm', 'llm_model', request.llm_model);
      const embedding = resolveModel('embedding', 'embedding_model', request.embedding_model);
      const estimate = estimateIngestion(deps.config, request.content_length, {
        llm: { input_per_1k: llm.found?.cost.input_per_1k ?? 0, output_per_1k: llm.found?.cost.output_per_1k ?? 0 },
        embedding: { per_1k: embedding.found?.cost.embedding_per_1k ?? 0 },
      });
      const answer = {
        ...estimate,
        llm_model: `${llm.provider}/${llm.model}`,
        embedding_model: `${embedding.provider}/${embedding.model}`,
        model: llm.model,
        provider: llm.provider,
      };
      return edgeQuake ? inEdgeQuakeTerms(answer) : answer;
    },

    /** Refuses new work (ingestion, queries) of a workspace whose budget for the period is spent. */
    async assertWithinBudget(scope: Scope): Promise<void> {
      const budget = await budgetOf(scope);
      if (!budget || budget.budget_usd === null) return;
      await flush();
      const s = await status(scope);
      if (!s.exhausted) return;
      throw new BudgetExhaustedError(
        `the ${s.period} budget of this workspace is spent ($${s.spent_usd} of $${s.budget_usd}); new ingestion and queries are refused until ${s.period_end}, or raise budget_usd with PATCH /api/v1/costs/budget`,
        { budget_usd: s.budget_usd, spent_usd: s.spent_usd, period: s.period, period_end: s.period_end },
      );
    },

    async budget(scope: Scope): Promise<BudgetStatus> {
      await flush();
      return status(scope);
    },

    async updateBudget(scope: Scope, patch: BudgetPatch): Promise<BudgetStatus> {
      const current = await budgetOf(scope);
      const next: BudgetRecord = {
        workspace_id: scope.workspaceId,
        tenant_id: scope.tenantId ?? (await tenantOf(scope.workspaceId)),
        budget_usd: patch.budget_usd !== undefined ? patch.budget_usd : (current?.budget_usd ?? null),
        alert_threshold: patch.alert_threshold ?? current?.alert_threshold ?? DEFAULT_ALERT_THRESHOLD,
        period: patch.period ?? current?.period ?? DEFAULT_PERIOD,
        updated_at: now().toISOString(),
      };
      await costs.setBudget(scope, next);
      await flush();
      // A new budget may end an alert or raise one: decided again from the new figures.
      alerts.delete(scopeKey(scope));
      await checkAlert(scope);
      return status(scope);
    },

    /** The workspace's spend over its budget period. */
    async summary(scope: Scope): Promise<CostSummary> {
      await flush();
      const period = (await budgetOf(scope))?.period ?? DEFAULT_PERIOD;
      const range = periodRange(period, now());
      return summaryOf(await costs.totals(scope, range), scope.workspaceId, period, range);
    },

    /** The tenant's spend over the current month, in total and per workspace. */
    async tenantSummary(tenantId: string) {
      await flush();
      const range = periodRange('month', now());
      const per = await costs.tenantTotals(tenantId, range);
      const total = emptyTotals();
      for (const t of per.values()) {
        total.cost_usd += t.cost_usd;
        total.input_tokens += t.input_tokens;
        total.output_tokens += t.output_tokens;
        total.calls += t.calls;
        total.documents += t.documents;
        total.queries += t.queries;
        for (const c of ['extraction', 'embedding', 'queries'] as const) total.by_category[c] += t.by_category[c];
      }
      const { workspace_id: _, ...summary } = summaryOf(total, '', 'month', range);
      return {
        tenant_id: tenantId,
        ...summary,
        workspaces: [...per]
          .map(([id, t]) => summaryOf(t, id, 'month', range))
          .sort((a, b) => b.total_cost_usd - a.total_cost_usd || a.workspace_id.localeCompare(b.workspace_id)),
      };
    },

    async history(scope: Scope, start: Date, end: Date, granularity: Granularity) {
      const starts = bucketRange(granularity, start, end);
      await flush();
      const records = await costs.list(scope, { from: starts[0]!.toISOString(), to: end.toISOString() });
      const buckets: HistoryBucket[] = bucketize(granularity, starts, records);
      return {
        granularity,
        start_date: start.toISOString(),
        end_date: end.toISOString(),
        total_cost_usd: roundUsd(buckets.reduce((sum, b) => sum + b.cost_usd, 0)),
        buckets,
      };
    },

    /** Budget alerts of the current periods, for /health. */
    alerts(): BudgetAlert[] {
      const at = now();
      return [...alerts.values()].filter((a) => periodBounds(a.period, at).start.toISOString() === a.period_start);
    },

    async close(): Promise<void> {
      await flush();
    },
  };
}

export type CostService = ReturnType<typeof createCostService>;
