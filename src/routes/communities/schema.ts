import { z } from 'zod';
import type { CommunityRecord } from '../../domain/communities';
import type { EntityRecord } from '../../domain/types';
import { pagingAliases, queryBool, queryInt, queryNumber } from '../../http/validate';

export const communityListQuerySchema = z.object({
  level: queryNumber((n) => n.int().min(0).max(10).optional()).describe('only this level (0 the coarsest)'),
  limit: queryInt(50, 1, 1000),
  offset: queryInt(0, 0, Number.MAX_SAFE_INTEGER),
  ...pagingAliases,
});

export const communityParamsSchema = z.object({ id: z.string().min(1).max(256) });

export const rebuildQuerySchema = z.object({
  wait: queryBool(false).describe('answer when the run has finished (200) instead of at once (202)'),
});

/** The body may be left out; `wait` there is the same as the query parameter. */
export const rebuildBodySchema = z.object({
  wait: z.boolean().optional().describe('answer when the run has finished (200) instead of at once (202)'),
});

const findingSchema = z.object({ summary: z.string(), explanation: z.string() });

export const communitySchema = z
  .object({
    id: z.string(),
    level: z.number().int(),
    parent_id: z.string().nullable(),
    size: z.number().int().describe('member entities'),
    title: z.string(),
    summary: z.string(),
    findings: z.array(findingSchema),
    rank: z.number().describe('importance from 0 to 10, as the report rates it'),
    member_ids: z.array(z.string()).describe('at most the first 500 (sorted)'),
    content_hash: z.string().describe('changes when the members, their descriptions or their relationships change'),
    report_model: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Community' });

export const communityListSchema = z.object({
  communities: z.array(communitySchema),
  total: z.number().int(),
});

const memberSchema = z.object({
  id: z.string(),
  name: z.string(),
  entity_type: z.string(),
  description: z.string(),
});

export const communityDetailSchema = z.object({
  community: communitySchema,
  members: z.array(memberSchema),
  members_total: z.number().int(),
});

export const runSummarySchema = z
  .object({
    started_at: z.string(),
    finished_at: z.string().nullable(),
    entities: z.number().int(),
    relationships: z.number().int(),
    communities: z.number().int(),
    levels: z.number().int(),
    reports_generated: z.number().int().describe('reports the LLM wrote (new or changed communities)'),
    reports_reused: z.number().int().describe('reports kept because their community did not change'),
    modularity: z.number(),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
    llm_calls: z.number().int().optional().describe('LLM provider calls the run made (its reports)'),
    charged: z
      .array(z.object({ document_id: z.string(), version: z.number().int(), llm_calls: z.number().int() }))
      .optional()
      .describe("the content updates whose graph changes the run covered, and each one's share of its calls"),
  })
  .meta({ id: 'CommunityRun' });

export const communityStatusSchema = z.object({
  state: z.enum(['idle', 'scheduled', 'running']),
  communities: z.number().int(),
  refresh_ms: z.number().int().describe('automatic recompute delay after a graph change; 0 = on request only'),
  last_run: runSummarySchema.nullable(),
});

export const rebuildResultSchema = z.object({
  status: z.enum(['completed', 'scheduled']),
  run: runSummarySchema.nullable(),
});

export function presentCommunity(c: CommunityRecord): z.infer<typeof communitySchema> {
  return {
    id: c.id,
    level: c.level,
    parent_id: c.parent_id,
    size: c.size,
    title: c.title,
    summary: c.summary,
    findings: c.findings,
    rank: c.rank,
    member_ids: c.member_ids.slice(0, 500),
    content_hash: c.content_hash,
    report_model: c.report_model,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

export function presentMember(e: EntityRecord): z.infer<typeof memberSchema> {
  return { id: e.id, name: e.name, entity_type: e.entity_type, description: e.description };
}
