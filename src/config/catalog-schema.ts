import { z } from 'zod';

/** The models.toml schema (docs/api.md §1.3). Every key but names and types has a default; unknown keys are errors. */

const capabilitiesSchema = z
  .strictObject({
    context_length: z.int().positive().optional(),
    max_output_tokens: z.int().nonnegative().optional(),
    supports_vision: z.boolean().default(false),
    supports_function_calling: z.boolean().default(false),
    supports_json_mode: z.boolean().default(false),
    supports_streaming: z.boolean().default(true),
    supports_system_message: z.boolean().default(true),
    embedding_dimension: z.int().nonnegative().default(0),
    similarity_threshold: z.number().min(-1).max(1).optional(),
    query_prefix: z.string().optional(),
    document_prefix: z.string().optional(),
  })
  .prefault({});

/** What one call may spend (docs/api.md §1.3); each key falls back to the provider's, then to its type's default. */
const budgetSchema = z.strictObject({
  max_output_tokens: z.int().positive().optional(),
  timeout_ms: z.int().positive().optional(),
  idle_timeout_ms: z.int().positive().optional(),
  concurrency: z.int().positive().optional(),
});

const costSchema = z
  .strictObject({
    input_per_1k: z.number().nonnegative().default(0),
    output_per_1k: z.number().nonnegative().default(0),
    embedding_per_1k: z.number().nonnegative().default(0),
    image_per_unit: z.number().nonnegative().default(0),
  })
  .prefault({});

const modelSchema = z
  .strictObject({
    name: z.string().min(1),
    display_name: z.string().optional(),
    model_type: z.enum(['llm', 'embedding']),
    description: z.string().default(''),
    deprecated: z.boolean().default(false),
    tags: z.array(z.string()).default([]),
    capabilities: capabilitiesSchema,
    cost: costSchema,
    budget: budgetSchema.optional(),
  })
  .superRefine((m, ctx) => {
    const dim = m.capabilities.embedding_dimension;
    if (m.model_type === 'embedding' && dim <= 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['capabilities', 'embedding_dimension'],
        message: 'must be greater than 0 for an embedding model',
      });
    }
    if (m.model_type === 'llm' && dim !== 0) {
      ctx.addIssue({ code: 'custom', path: ['capabilities', 'embedding_dimension'], message: 'must be 0 for an llm model' });
    }
  });

const providerSchema = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only'),
    display_name: z.string().optional(),
    type: z.enum(['mock', 'openai', 'ollama'], { error: 'unknown provider type (expected "mock", "openai" or "ollama")' }),
    api_base: z.url({ protocol: /^https?$/ }).optional(),
    api_key_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
      .optional(),
    enabled: z.boolean().default(true),
    priority: z.int().default(100),
    description: z.string().default(''),
    budget: budgetSchema.optional(),
    models: z.array(modelSchema).default([]),
  })
  .superRefine((p, ctx) => {
    const seen = new Set<string>();
    p.models.forEach((m, i) => {
      if (seen.has(m.name)) ctx.addIssue({ code: 'custom', path: ['models', i, 'name'], message: `duplicate model '${m.name}'` });
      seen.add(m.name);
    });
  });

export const catalogFileSchema = z.strictObject({
  defaults: z
    .strictObject({
      llm_provider: z.string().min(1).optional(),
      llm_model: z.string().min(1).optional(),
      embedding_provider: z.string().min(1).optional(),
      embedding_model: z.string().min(1).optional(),
    })
    .prefault({}),
  providers: z.array(providerSchema).min(1, 'at least one [[providers]] entry is required'),
});

export type CatalogFile = z.output<typeof catalogFileSchema>;
export type CatalogFileInput = z.input<typeof catalogFileSchema>;

/** `providers[1].models[0].capabilities.context_length` */
export function formatKeyPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || '(root)';
}
