import { z } from 'zod';

/** Response shapes of /models and /providers (docs/api.md §4.11). */

const name = z.string().min(1).max(200);

export const providerParams = z.object({ provider: name.describe('Provider name from the catalog') });
export const modelParams = providerParams.extend({ model: name.describe('Model name (URL-encode a "/" in it)') });

export const modelFilterQuery = z.object({
  provider: name.optional().describe('Only this provider'),
  include_disabled: z
    .enum(['true', 'false'])
    .default('false')
    .describe('Also list models of disabled providers (their key variable unset, or enabled = false)'),
});

export const modelSchema = z
  .object({
    id: z.string().describe('provider/name'),
    name: z.string(),
    display_name: z.string(),
    provider: z.string(),
    model_type: z.enum(['llm', 'embedding']),
    context_length: z.number().int(),
    max_output_tokens: z.number().int(),
    embedding_dimension: z.number().int().describe('0 for LLMs'),
    capabilities: z.array(z.string()).describe('chat (LLMs) or embeddings'),
    deprecated: z.boolean(),
    tags: z.array(z.string()),
    description: z.string(),
    supports: z.object({
      vision: z.boolean(),
      function_calling: z.boolean(),
      json_mode: z.boolean(),
      streaming: z.boolean(),
      system_message: z.boolean(),
    }),
    cost: z
      .object({
        input_per_1k: z.number(),
        output_per_1k: z.number(),
        embedding_per_1k: z.number(),
        image_per_unit: z.number(),
      })
      .describe('US dollars per 1,000 tokens (images: per image)'),
  })
  .meta({ id: 'Model' });

export const providerSchema = z
  .object({
    name: z.string(),
    display_name: z.string(),
    type: z.enum(['mock', 'openai', 'ollama']),
    api_base: z.string().nullable(),
    enabled: z.boolean().describe('false when its key variable is unset or the catalog disables it'),
    priority: z.number().int(),
    description: z.string(),
    api_key_env: z.string().nullable().describe('The name of the key variable; the key itself is never shown'),
    api_key_set: z.boolean(),
    llm_models: z.array(z.string()),
    embedding_models: z.array(z.string()),
    default_for: z.array(z.enum(['llm', 'embedding'])).describe('The kinds this provider serves by default'),
    last_check: z
      .object({
        status: z.enum(['healthy', 'unhealthy']),
        latency_ms: z.number().int(),
        error: z.string().optional(),
        checked_at: z.string(),
      })
      .nullable()
      .describe('The last live check (start-up probe of the defaults, /models/health, /providers/{provider}); null before any'),
  })
  .meta({ id: 'Provider' });

export const providerHealthSchema = z
  .object({
    name: z.string(),
    status: z.enum(['healthy', 'unhealthy']),
    latency_ms: z.number().int(),
    error: z.string().optional(),
  })
  .meta({ id: 'ProviderHealth' });
