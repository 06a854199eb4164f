import { z } from 'zod';
import { isoDateSchema } from '../query/schema';
import { atLeastOneOf } from '../../http/validate';

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

export const estimateBodySchema = z.object({
  content_length: z.number().int().min(0).max(1_000_000_000).describe('Characters of text to ingest'),
  llm_model: modelRef.optional().describe('provider/model or a model name; default: the workspace\u2019s LLM'),
  embedding_model: modelRef.optional().describe('provider/model or a model name; default: the workspace\u2019s embedding model'),
});

export const estimateSchema = z.object({
  llm_model: z.string(),
  embedding_model: z.string(),
  estimated_chunks: z.number().int(),
  estimated_tokens: z.object({
    extraction: z.number().int().describe('LLM tokens (input and output) of extraction, gleaning and summaries'),
    embedding: z.number().int(),
    query: z.number().int().describe('Tokens of one typical query over the document'),
  }),
  estimated_cost_usd: z.object({ extraction: usd, embedding: usd, total: usd }),
  assumptions: z.object({
    document_tokens: z.number().int(),
    chunk_tokens: z.number().int(),
    chunk_overlap_tokens: z.number().int(),
    max_gleaning: z.number().int(),
    extraction_input_tokens: z.number().int(),
    extraction_output_tokens: z.number().int(),
    query_cost_usd: usd,
  }),
});

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
