import { z } from 'zod';
import { plainText } from '../../http/validate';
import {
  contextEventSchema,
  MAX_QUERY_CHARS,
  modeSchema,
  retrievalFields,
  sourceSchema,
  statsSchema,
  tokenEventSchema,
} from '../shared/answer-schema';

/** Chat completions (docs/api.md §4.4, §6.2). */

export const chatBodySchema = z.object({
  message: plainText(z.string().trim().min(1, 'must not be empty').max(MAX_QUERY_CHARS, `must be at most ${MAX_QUERY_CHARS} characters`)),
  conversation_id: z.string().trim().min(1, 'must not be empty').max(200).nullable().optional(),
  stream: z.boolean().optional(),
  ...retrievalFields,
  provider: z.string().trim().min(1).max(200).optional().describe('EdgeQuake name of llm_provider'),
  model: z.string().trim().min(1).max(200).optional().describe('EdgeQuake name of llm_model'),
});

export type ChatBody = z.output<typeof chatBodySchema>;

export const chatReplySchema = z.object({
  id: z.string().describe('the assistant message id'),
  conversation_id: z.string(),
  user_message_id: z.string(),
  assistant_message_id: z.string().describe('= id'),
  mode: modeSchema,
  role: z.literal('assistant'),
  content: z.string(),
  sources: z.array(sourceSchema),
  stats: statsSchema,
  no_context: z.boolean().describe('true when retrieval found nothing: `content` is the "no context" response and no model was asked'),
  created_at: z.string(),
});

export const chatEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('conversation'), conversation_id: z.string(), user_message_id: z.string() }),
  contextEventSchema,
  tokenEventSchema,
  z.object({
    type: z.literal('done'),
    no_context: z.boolean().describe("= the context event's no_context"),
    assistant_message_id: z.string(),
    tokens_used: z.number().int(),
    duration_ms: z.number().int(),
    llm_provider: z.string(),
    llm_model: z.string(),
    done: z.literal(true).describe('EdgeQuake marker of the last event'),
  }),
  z.object({
    type: z.literal('error'),
    error: z.object({ type: z.string(), title: z.string(), status: z.number().int(), detail: z.string() }),
  }),
]);
