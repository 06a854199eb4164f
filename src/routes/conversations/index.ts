import type { Api } from '../../http/api';
import type { Runtime } from '../../services/runtime';
import { notOfferedRoutes } from './not-offered';
import {
  archiveConversationsSchema,
  bulkResultSchema,
  conversationDetailSchema,
  conversationListQuerySchema,
  conversationListSchema,
  conversationParamsSchema,
  conversationSchema,
  createConversationSchema,
  deleteConversationsSchema,
  messageListSchema,
  moveConversationsSchema,
  moveResultSchema,
  pageQuerySchema,
  updateConversationSchema,
} from './schema';

const tag = 'conversations';

function pageOf(query: { limit: number; offset: number; cursor?: string }) {
  return { limit: query.limit, offset: query.cursor !== undefined ? Number(query.cursor) : query.offset };
}

/** A page with EdgeQuake's cursor pagination beside total/limit/offset. */
function withPagination<P extends { total: number; limit: number; offset: number }>(page: P) {
  const next = page.offset + page.limit;
  return {
    ...page,
    pagination: {
      total: page.total,
      has_more: next < page.total,
      next_cursor: next < page.total ? String(next) : null,
      prev_cursor: page.offset > 0 ? String(Math.max(0, page.offset - page.limit)) : null,
    },
  };
}

/** Stored chat conversations and their messages, per workspace. */
export function conversationRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/conversations',
      tag,
      summary: 'List conversations, most recently active first unless sorted otherwise',
      query: conversationListQuerySchema,
      responses: { 200: { description: 'A page of conversations', schema: conversationListSchema } },
    },
    async (ctx, { query }) => {
      const filter = {
        folderId: query['filter[folder_id]'] ?? query.folder_id,
        unfiled: query['filter[unfiled]'],
        pinned: query['filter[pinned]'],
        archived: query['filter[archived]'],
        search: query['filter[search]'],
        modes: query['filter[mode]'],
      };
      const order = { sort: query.sort, order: query.order };
      ctx.body = withPagination(await rt.conversations.list(ctx.state.scope, { ...pageOf(query), ...filter, ...order }));
    },
  );

  api.route(
    {
      method: 'post',
      path: '/conversations',
      // A chat turn starts one as well: whoever may chat may start a conversation.
      access: 'viewer',
      tag,
      summary: 'Create an empty conversation',
      body: createConversationSchema,
      responses: { 201: { description: 'The conversation', schema: conversationSchema } },
    },
    async (ctx, { body }) => {
      ctx.status = 201;
      ctx.body = await rt.conversations.create(ctx.state.scope, body);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/conversations/:id',
      tag,
      summary: 'A conversation with its messages, oldest first',
      params: conversationParamsSchema,
      responses: {
        200: { description: 'The conversation', schema: conversationDetailSchema },
        404: { description: 'Not in this workspace' },
      },
    },
    async (ctx, { params }) => {
      ctx.body = await rt.conversations.get(ctx.state.scope, params.id);
    },
  );

  api.route(
    {
      method: 'patch',
      path: '/conversations/:id',
      tag,
      summary: 'Rename a conversation, file it in a folder (folder_id null: none), pin or archive it',
      params: conversationParamsSchema,
      body: updateConversationSchema,
      responses: {
        200: { description: 'The conversation', schema: conversationSchema },
        404: { description: 'The conversation or the folder is not in this workspace' },
      },
    },
    async (ctx, { params, body }) => {
      ctx.body = await rt.conversations.update(ctx.state.scope, params.id, body);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/conversations/bulk/move',
      tag,
      summary: 'File conversations in a folder (folder_id null: none), all or none',
      body: moveConversationsSchema,
      responses: {
        200: { description: 'How many were filed', schema: moveResultSchema },
        404: { description: 'A conversation or the folder is not in this workspace' },
      },
    },
    async (ctx, { body }) => {
      ctx.body = await rt.conversations.move(ctx.state.scope, body.conversation_ids, body.folder_id ?? null);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/conversations/bulk/archive',
      tag,
      summary: 'Archive conversations (archive false: unarchive), all or none',
      body: archiveConversationsSchema,
      responses: {
        200: { description: 'How many were archived or unarchived', schema: bulkResultSchema },
        404: { description: 'A conversation is not in this workspace' },
      },
    },
    async (ctx, { body }) => {
      ctx.body = await rt.conversations.archive(ctx.state.scope, body.conversation_ids, body.archive);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/conversations/bulk/delete',
      tag,
      summary: 'Delete conversations with their messages, all or none',
      body: deleteConversationsSchema,
      responses: {
        200: { description: 'How many were deleted', schema: bulkResultSchema },
        404: { description: 'A conversation is not in this workspace' },
      },
    },
    async (ctx, { body }) => {
      ctx.body = await rt.conversations.deleteMany(ctx.state.scope, body.conversation_ids);
    },
  );

  api.route(
    {
      method: 'delete',
      path: '/conversations/:id',
      tag,
      summary: 'Delete a conversation and its messages',
      params: conversationParamsSchema,
      responses: { 204: { description: 'Deleted' }, 404: { description: 'Not in this workspace' } },
    },
    async (ctx, { params }) => {
      await rt.conversations.delete(ctx.state.scope, params.id);
      ctx.status = 204;
    },
  );

  api.route(
    {
      method: 'get',
      path: '/conversations/:id/messages',
      tag,
      summary: 'Messages of a conversation, oldest first',
      params: conversationParamsSchema,
      query: pageQuerySchema,
      responses: {
        200: { description: 'A page of messages', schema: messageListSchema },
        404: { description: 'Not in this workspace' },
      },
    },
    async (ctx, { params, query }) => {
      ctx.body = withPagination(await rt.conversations.messages(ctx.state.scope, params.id, pageOf(query)));
    },
  );

  notOfferedRoutes(api);
}
