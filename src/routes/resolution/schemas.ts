import { z } from 'zod';

const score = z.number().min(0).max(1);

export const settingsSchema = z.object({
  enabled: z.boolean().describe('Resolve the entities each document adds at merge time'),
  merge_score: score.describe('Candidates scoring at least this are merged'),
  review_score: score.describe('Candidates from this score up to merge_score are merged when the LLM confirms'),
});

export const settingsPatch = z.strictObject({
  enabled: z.boolean().optional(),
  merge_score: score.optional(),
  review_score: score.optional(),
});

export const dryRunBody = z.strictObject({
  entity_ids: z.array(z.string().min(1).max(512)).min(1).max(500).optional().describe('Entities to resolve (ids or names)'),
  limit: z.number().int().min(1).max(500).default(100).describe('Without entity_ids: how many entities of the listing to resolve'),
  confirm: z.boolean().default(false).describe('Ask the LLM about the pairs in the review band'),
});

export const proposalSchema = z.object({
  source_id: z.string().describe('The entity that would be absorbed'),
  source_name: z.string(),
  target_id: z.string().describe('The survivor'),
  target_name: z.string(),
  score: z.number(),
  name_score: z.number(),
  embedding_score: z.number().nullable(),
  decision: z.enum(['merge', 'confirmed', 'rejected', 'unconfirmed']),
  reason: z.string(),
});

export const dryRunSchema = z.object({
  proposals: z.array(proposalSchema),
  examined: z.number().int(),
  llm_calls: z.number().int(),
});

export const applyBody = z.strictObject({
  merges: z
    .array(
      z.strictObject({
        source_id: z.string().min(1).max(512),
        target_id: z.string().min(1).max(512),
        reason: z.string().max(1000).optional(),
      }),
    )
    .min(1)
    .max(500),
});

const pair = z.object({ source_id: z.string(), target_id: z.string() });
export const applySchema = z.object({
  applied: z.array(pair),
  skipped: z.array(pair.extend({ reason: z.string() })),
});

export const rejectBody = z.strictObject({
  pairs: z
    .array(
      z.strictObject({
        source_id: z.string().min(1).max(512),
        target_id: z.string().min(1).max(512),
      }),
    )
    .min(1)
    .max(500),
});

export const rejectSchema = z.object({
  rejected: z.array(pair),
  skipped: z.array(pair.extend({ reason: z.string() })),
});

export const splitParams = z.object({ id: z.string().min(1).max(512) });
export const splitBody = z.strictObject({
  alias: z.string().min(1).max(512).describe('An id the entity absorbed (see its merge_history)'),
});

const entity = z.object({ id: z.string(), name: z.string(), entity_type: z.string(), description: z.string() }).nullable();
export const splitSchema = z.object({ entity, split_off: entity });
