import { z } from 'zod';
import { plainText, queryInt } from '../../http/validate';
import { modeSchema, sourceSchema } from '../shared/answer-schema';
import { QUERY_MODES } from '../../retrieval';

export const conversationParamsSchema = z.object({ id: z.string().min(1) });

const idSchema = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const folderIdSchema = idSchema.nullable().optional().describe('the folder to file it in; null: none');
const titleSchema = plainText(z.string().trim().max(200, 'must be at most 200 characters'));

export const pageQuerySchema = z.object({
  limit: queryInt(50, 1, 500),
  offset: queryInt(0, 0, Number.MAX_SAFE_INTEGER),
  cursor: z.string().regex(/^\d+$/, 'must be a cursor this service returned').optional().describe("a page's next_cursor; overrides offset"),
});

/** EdgeQuake's cursor paging beside limit/offset: the cursor is the offset of the next page. */
const paginationSchema = z.object({
  total: z.number().int(),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
  prev_cursor: z.string().nullable(),
});

const MODE = `(?:${QUERY_MODES.join('|')})`;
/** One mode or several, separated by commas. */
const MODE_LIST = new RegExp(`^${MODE}(?:,${MODE})*$`);

/** A query-string flag that filters when given. */
const filterFlag = (description: string) =>
  z
    .enum(['true', 'false', '1', '0'])
    .transform((v) => v === 'true' || v === '1')
    .optional()
    .describe(description);

export const conversationListQuerySchema = pageQuerySchema.extend({
  'filter[folder_id]': idSchema.optional().describe('only the conversations filed in this folder'),
  folder_id: idSchema.optional().describe('= filter[folder_id]'),
  'filter[unfiled]': filterFlag('true: only those in no folder; false: only those in one'),
  'filter[pinned]': filterFlag('only the pinned (true) or the unpinned (false)'),
  'filter[archived]': filterFlag('only the archived (true) or the others (false); absent: both'),
  'filter[search]': plainText(z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'))
    .optional()
    .describe('only those whose title contains this text, whatever the case'),
  'filter[mode]': z
    .string()
    .regex(MODE_LIST, `must be modes among ${QUERY_MODES.join(', ')}, separated by commas`)
    .transform((v) => v.split(','))
    .optional()
    .describe('only those of these modes (comma-separated)'),
  sort: z.enum(['updated_at', 'created_at', 'title']).default('updated_at'),
  order: z.enum(['desc', 'asc']).default('desc'),
});

export const createConversationSchema = z.object({
  title: titleSchema.nullable().optional(),
  mode: modeSchema.nullable().optional(),
  folder_id: folderIdSchema,
});

export const updateConversationSchema = z.object({
  title: titleSchema.optional(),
  folder_id: folderIdSchema,
  is_pinned: z.boolean().optional(),
  is_archived: z.boolean().optional(),
});

const conversationIdsSchema = z
  .array(idSchema)
  .min(1, 'must name at least one conversation')
  .max(500, 'must name at most 500 conversations');

export const moveConversationsSchema = z.object({
  conversation_ids: conversationIdsSchema,
  folder_id: folderIdSchema,
});

export const moveResultSchema = z.object({ affected: z.number().int().describe('conversations filed') });

export const archiveConversationsSchema = z.object({
  conversation_ids: conversationIdsSchema,
  archive: z.boolean().default(true).describe('false: unarchive'),
});

export const deleteConversationsSchema = z.object({ conversation_ids: conversationIdsSchema });

export const bulkResultSchema = z.object({ affected: z.number().int().describe('conversations changed') });

export const conversationSchema = z.object({
  id: z.string(),
  title: z.string().describe("the first message's opening words unless given"),
  mode: modeSchema,
  message_count: z.number().int(),
  folder_id: z.string().nullable().describe('the folder it is filed in, or null'),
  is_pinned: z.boolean(),
  is_archived: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const messageSchema = z.object({
  id: z.string(),
  conversation_id: z.string(),
  role: z.enum(['user', 'assistant', 'system']),
  content: z.string(),
  sources: z.array(sourceSchema),
  status: z.enum(['complete', 'streaming', 'failed']).describe('failed: the answer broke off; content is what was produced'),
  created_at: z.string(),
});

export const conversationListSchema = z.object({
  conversations: z.array(conversationSchema),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  pagination: paginationSchema,
});

export const conversationDetailSchema = conversationSchema.extend({ messages: z.array(messageSchema) });

export const messageListSchema = z.object({
  messages: z.array(messageSchema),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  pagination: paginationSchema,
});
