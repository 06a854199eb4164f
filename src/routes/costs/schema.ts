import { z } from 'zod';
import { isoDateSchema } from '../shared/params';
import { atLeastOneOf, notBoth } from '../../http/validate';

const usd = z.number();
const period = z.enum(['day', 'week', 'month']);

export const pricingSchema = z.object({
  models: z.array(
    z.object({
      id: z.string().describe('provider/model'),
      name: z.string(),
      provider: z.string(),
      model_type: z.enum(['llm', 'embedding']),
      input_cost_per_1k_tokens: usd.describe('USD per 1,000 input tokens (embedding models: per 1,000 embedded tokens)'),
      output_cost_per_1k_tokens: usd.optional().describe('USD per 1,000 output tokens; absent for embedding models'),
      deprecated: z.boolean(),
      provider_enabled: z.boolean(),
      model: z.string().describe("= name (EdgeQuake's name)"),
      input_cost_per_1k: usd.describe('= input_cost_per_1k_tokens'),
      output_cost_per_1k: usd.nullable().describe('= output_cost_per_1k_tokens; null for embedding models'),
      currency: z.literal('USD'),
    }),
  ),
});

const modelRef = z.string().trim().min(1).max(300);

export const estimateBodySchema = notBoth(
  notBoth(
    z.object({
      content_length: z.number().int().min(0).max(1_000_000_000).describe('Characters of text to ingest'),
      llm_model: modelRef.optional().describe('provider/model or a model name; default: the workspace\u2019s LLM'),
      embedding_model: modelRef.optional().describe('provider/model or a model name; default: the workspace\u2019s embedding model'),
      model: modelRef
        .optional()
        .describe(
          "EdgeQuake's name for the LLM, instead of llm_model: a model name (with `provider`: that provider's); the answer is then in EdgeQuake's terms",
        ),
      provider: modelRef
        .optional()
        .describe(
          "EdgeQuake's name for the LLM's provider, instead of llm_model; alone: the workspace's LLM if it is this provider's, else the provider's first",
        ),
    }),
    'llm_model',
    'model',
    'name the LLM either with llm_model or with model and provider, not both',
  ),
  'llm_model',
  'provider',
  'name the LLM either with llm_model or with model and provider, not both',
);

const estimatedTokens = z.object({
  extraction: z.number().int().describe('LLM tokens (input and output) of extraction, gleaning and summaries'),
  embedding: z.number().int(),
  query: z.number().int().describe('Tokens of one typical query over the document'),
});
const estimatedCost = z.object({ extraction: usd, embedding: usd, total: usd });

const estimateCommon = {
  llm_model: z.string(),
  embedding_model: z.string(),
  model: z.string().describe("The LLM's name (EdgeQuake's name)"),
  provider: z.string().describe("The LLM's provider (EdgeQuake's name)"),
  estimated_chunks: z.number().int(),
  assumptions: z.object({
    document_tokens: z.number().int(),
    chunk_tokens: z.number().int(),
    chunk_overlap_tokens: z.number().int(),
    max_gleaning: z.number().int(),
    extraction_input_tokens: z.number().int(),
    extraction_output_tokens: z.number().int(),
    query_cost_usd: usd,
  }),
};

/** The answer to a request naming the LLM with llm_model, or not at all (the spec's). */
const specEstimateSchema = z.object({
  ...estimateCommon,
  estimated_tokens: estimatedTokens,
  estimated_cost_usd: estimatedCost,
});

/** The answer to a request naming the LLM with EdgeQuake's model/provider: totals where EdgeQuake has numbers. */
const edgeQuakeEstimateSchema = z.object({
  ...estimateCommon,
  estimated_tokens: z.number().int().describe('= token_breakdown.extraction + token_breakdown.embedding'),
  estimated_cost_usd: usd.describe('= cost_breakdown_usd.total'),
  token_breakdown: estimatedTokens,
  cost_breakdown_usd: estimatedCost,
});

export const estimateSchema = z.union([specEstimateSchema, edgeQuakeEstimateSchema]);

const breakdown = z.object({ extraction: usd, embedding: usd, queries: usd });
const usage = z.object({
  documents_processed: z.number().int(),
  queries_executed: z.number().int(),
  tokens_used: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  calls: z.number().int(),
});

export const summarySchema = z.object({
  workspace_id: z.string(),
  period,
  period_start: z.string(),
  period_end: z.string(),
  total_cost_usd: usd,
  breakdown,
  usage,
});

export const tenantSummarySchema = z.object({
  tenant_id: z.string(),
  period,
  period_start: z.string(),
  period_end: z.string(),
  total_cost_usd: usd,
  breakdown,
  usage,
  workspaces: z.array(summarySchema),
});

export const historyQuerySchema = z.object({
  start_date: isoDateSchema.optional().describe('ISO 8601 date or timestamp; default: 30 days ago'),
  end_date: isoDateSchema.optional().describe('ISO 8601 date or timestamp; default: now'),
  granularity: z.enum(['hour', 'day', 'week']).default('day'),
});

export const historySchema = z.object({
  granularity: z.enum(['hour', 'day', 'week']),
  start_date: z.string(),
  end_date: z.string(),
  total_cost_usd: usd,
  buckets: z.array(
    z.object({
      timestamp: z.string().describe('Start of the bucket (UTC)'),
      cost_usd: usd,
      input_tokens: z.number().int(),
      output_tokens: z.number().int(),
      calls: z.number().int(),
    }),
  ),
});

export const budgetSchema = z.object({
  budget_usd: usd.nullable(),
  spent_usd: usd,
  remaining_usd: usd.nullable(),
  percent_used: z.number().nullable(),
  period,
  period_start: z.string(),
  period_end: z.string(),
  alert_threshold: z.number(),
  projected_end_of_period: usd,
  alert: z.boolean(),
  exhausted: z.boolean(),
});

export const budgetPatchSchema = atLeastOneOf(
  z.object({
    budget_usd: z.number().min(0).max(1e12).nullable().optional().describe('USD per period; null removes the budget'),
    alert_threshold: z.number().min(0).max(1).optional().describe('Fraction of the budget at which a warning is raised'),
    period: period.optional(),
  }),
  ['budget_usd', 'alert_threshold', 'period'],
  'name at least one field to change',
);
