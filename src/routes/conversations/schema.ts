import { z } from 'zod';
import { plainText, queryInt } from '../../http/validate';
import { modeSchema, sourceSchema } from '../query/schema';

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

export const conversationListQuerySchema = pageQuerySchema.extend({
  'filter[folder_id]': idSchema.optional().describe('only the conversations filed in this folder'),
  folder_id: idSchema.optional().describe('= filter[folder_id]'),
});

export const createConversationSchema = z.object({
  title: titleSchema.nullable().optional(),
  mode: modeSchema.nullable().optional(),
  folder_id: folderIdSchema,
});

export const updateConversationSchema = z.object({
  title: titleSchema.optional(),
  folder_id: folderIdSchema,
});

export const moveConversationsSchema = z.object({
  conversation_ids: z.array(idSchema).min(1, 'must name at least one conversation').max(500, 'must name at most 500 conversations'),
  folder_id: folderIdSchema,
});

export const moveResultSchema = z.object({ affected: z.number().int().describe('conversations filed') });

export const conversationSchema = z.object({
  id: z.string(),
  title: z.string().describe("the first message's opening words unless given"),
  mode: modeSchema,
  message_count: z.number().int(),
  folder_id: z.string().nullable().describe('the folder it is filed in, or null'),
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
