import { z } from 'zod';
import type { Api } from '../../http/api';
import { principalOf } from '../../http/context';
import type { Runtime } from '../../services/runtime';
import { idParams } from '../shared/params';
import { createUserSchema, updateUserSchema, userListQuery, userSchema } from './schema';

/** Users (docs/api.md §4.7): administrators manage their tenant's users; the master key and operators any tenant's. */
export function userRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'post',
      path: '/users',
      tag: 'users',
      access: 'admin',
      workspace: false,
      summary: 'Create a user (the first administrator can be created with the master key)',
      body: createUserSchema,
      responses: { 201: { description: 'The user', schema: userSchema } },
    },
    async (ctx, { body }) => {
      ctx.status = 201;
      ctx.body = await rt.auth.users.create(principalOf(ctx), body);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/users',
      tag: 'users',
      access: 'admin',
      workspace: false,
      summary: "List users of the caller's tenant (operators: of every tenant, or of tenant_id)",
      query: userListQuery,
      responses: { 200: { description: 'Users', schema: z.object({ users: z.array(userSchema), total: z.number().int() }) } },
    },
    async (ctx, { query }) => {
      const page = await rt.auth.users.list(principalOf(ctx), query.tenant_id ?? null, query);
      ctx.body = { users: page.items, total: page.total };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/users/:id',
      tag: 'users',
      access: 'admin',
      workspace: false,
      summary: 'A user',
      params: idParams('user id'),
      responses: { 200: { description: 'The user', schema: userSchema } },
    },
    async (ctx, { params }) => {
      ctx.body = await rt.auth.users.get(principalOf(ctx), params.id);
    },
  );

  api.route(
    {
      method: 'patch',
      path: '/users/:id',
      tag: 'users',
      access: 'admin',
      workspace: false,
      summary: "Change a user's email, password, role or disabled flag (password, role and disabling end their sessions)",
      params: idParams('user id'),
      body: updateUserSchema,
      responses: { 200: { description: 'The user', schema: userSchema } },
    },
    async (ctx, { params, body }) => {
      ctx.body = await rt.auth.users.update(principalOf(ctx), params.id, body);
    },
  );

  api.route(
    {
      method: 'delete',
      path: '/users/:id',
      tag: 'users',
      access: 'admin',
      workspace: false,
      summary: 'Delete a user with their API keys and sessions',
      params: idParams('user id'),
      responses: { 204: { description: 'Deleted' } },
    },
    async (ctx, { params }) => {
      await rt.auth.users.delete(principalOf(ctx), params.id);
      ctx.status = 204;
    },
  );
}
