import type { Api } from '../../http/api';
import type { Runtime } from '../../services/runtime';
import { createFolderSchema, folderListSchema, folderParamsSchema, folderSchema, renameFolderSchema } from './schema';

const tag = 'conversations';

/** Folders that organise a workspace's conversations. */
export function folderRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/folders',
      tag,
      summary: 'List conversation folders, by name',
      responses: { 200: { description: 'The folders', schema: folderListSchema } },
    },
    async (ctx) => {
      ctx.body = await rt.folders.list(ctx.state.scope);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/folders',
      tag,
      summary: 'Create a conversation folder',
      body: createFolderSchema,
      responses: { 201: { description: 'The folder', schema: folderSchema } },
    },
    async (ctx, { body }) => {
      ctx.status = 201;
      ctx.body = await rt.folders.create(ctx.state.scope, body);
    },
  );

  api.route(
    {
      method: 'patch',
      path: '/folders/:id',
      tag,
      summary: 'Rename a conversation folder',
      params: folderParamsSchema,
      body: renameFolderSchema,
      responses: { 200: { description: 'The folder', schema: folderSchema }, 404: { description: 'Not in this workspace' } },
    },
    async (ctx, { params, body }) => {
      ctx.body = await rt.folders.rename(ctx.state.scope, params.id, body);
    },
  );

  api.route(
    {
      method: 'delete',
      path: '/folders/:id',
      tag,
      summary: 'Delete a conversation folder; its conversations stay, in no folder',
      params: folderParamsSchema,
      responses: { 204: { description: 'Deleted' }, 404: { description: 'Not in this workspace' } },
    },
    async (ctx, { params }) => {
      await rt.folders.delete(ctx.state.scope, params.id);
      ctx.status = 204;
    },
  );
}
