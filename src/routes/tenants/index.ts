import { z } from 'zod';
import type { Api } from '../../http/api';
import { principalOf } from '../../http/context';
import { atLeastOneOf, queryBool } from '../../http/validate';
import type { Runtime } from '../../services/runtime';
import { idParams, pageQuery } from '../shared/params';
import { createWorkspaceSchema, tenantWorkspaceSchema, workspaceSchema } from '../shared/workspace';

const slug = z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'must be 1-63 lower-case letters, digits or inner dashes');

const tenantParams = z.object({ tenant_id: z.string().uuid('tenant id must be a UUID') });

const tenantSchema = z
  .object({ id: z.string(), name: z.string(), slug: z.string(), plan: z.string(), created_at: z.string(), updated_at: z.string() })
  .meta({ id: 'Tenant' });

const createTenantSchema = z.object({
  name: z.string().trim().min(1, 'is required').max(200),
  slug: slug.optional().describe('Default: from the name'),
  plan: z.string().trim().min(1).max(64).optional().describe('Free text; default "free"'),
});

const updateTenantSchema = atLeastOneOf(createTenantSchema.partial(), ['name', 'slug', 'plan'], 'name at least one of name, slug, plan');

/** Tenants (docs/api.md §4.7): the master key and operators manage them; a tenant's members read and its admins update their own. */
export function tenantRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'post',
      path: '/tenants',
      tag: 'tenants',
      access: 'operator',
      workspace: false,
      summary: 'Create a tenant with its default workspace',
      body: createTenantSchema,
      responses: { 201: { description: 'The tenant', schema: tenantSchema.extend({ default_workspace: workspaceSchema }) } },
    },
    async (ctx, { body }) => {
      const { tenant, default_workspace } = await rt.tenancy.createTenant(body);
      ctx.status = 201;
      ctx.body = { ...tenant, default_workspace };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/tenants',
      tag: 'tenants',
      workspace: false,
      summary: 'List tenants (operators: every tenant; others: their own)',
      query: pageQuery,
      responses: { 200: { description: 'Tenants', schema: z.object({ tenants: z.array(tenantSchema), total: z.number().int() }) } },
    },
    async (ctx, { query }) => {
      const page = await rt.tenancy.listTenants(principalOf(ctx), query);
      ctx.body = { tenants: page.items, total: page.total };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/tenants/:id',
      tag: 'tenants',
      workspace: false,
      summary: 'A tenant, with how many workspaces and users it holds',
      params: idParams('tenant id'),
      responses: {
        200: {
          description: 'The tenant',
          schema: tenantSchema.extend({ workspace_count: z.number().int(), user_count: z.number().int() }),
        },
      },
    },
    async (ctx, { params }) => {
      ctx.body = await rt.tenancy.tenantDetail(principalOf(ctx), params.id);
    },
  );

  // PUT is EdgeQuake's name for the same change (docs/api.md §10).
  for (const method of ['patch', 'put'] as const) {
    api.route(
      {
        method,
        path: '/tenants/:id',
        tag: 'tenants',
        access: 'admin',
        workspace: false,
        summary: method === 'patch' ? "Change a tenant's name, slug or plan" : 'Same as PATCH (EdgeQuake name)',
        params: idParams('tenant id'),
        body: updateTenantSchema,
        responses: { 200: { description: 'The tenant', schema: tenantSchema } },
      },
      async (ctx, { params, body }) => {
        ctx.body = await rt.tenancy.updateTenant(principalOf(ctx), params.id, body);
      },
    );
  }

  api.route(
    {
      method: 'delete',
      path: '/tenants/:id',
      tag: 'tenants',
      access: 'operator',
      workspace: false,
      summary: 'Delete a tenant; refused (409) while it holds workspaces or data unless force=true, which removes everything',
      params: idParams('tenant id'),
      query: z.object({ force: queryBool(false) }),
      responses: {
        200: {
          description: 'Deleted',
          schema: z.object({ id: z.string(), deleted_workspaces: z.number().int(), deleted_users: z.number().int() }),
        },
      },
    },
    async (ctx, { params, query }) => {
      ctx.body = { id: params.id, ...(await rt.tenancy.deleteTenant(principalOf(ctx), params.id, query.force)) };
    },
  );

  api.route(
    {
      method: 'post',
      path: '/tenants/:tenant_id/workspaces',
      tag: 'workspaces',
      access: 'admin',
      workspace: false,
      summary: 'Create a workspace in a tenant',
      params: tenantParams,
      body: tenantWorkspaceSchema.or(createWorkspaceSchema),
      responses: { 201: { description: 'The workspace', schema: workspaceSchema } },
    },
    async (ctx, { params, body }) => {
      ctx.status = 201;
      ctx.body = await rt.tenancy.createWorkspace(principalOf(ctx), params.tenant_id, body);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/tenants/:tenant_id/workspaces',
      tag: 'workspaces',
      workspace: false,
      summary: 'List the workspaces of a tenant (= GET /workspaces?tenant_id=; EdgeQuake path)',
      params: tenantParams,
      query: pageQuery,
      responses: {
        200: { description: 'Workspaces', schema: z.object({ workspaces: z.array(workspaceSchema), total: z.number().int() }) },
      },
    },
    async (ctx, { params, query }) => {
      const page = await rt.tenancy.listWorkspaces(principalOf(ctx), params.tenant_id, query);
      ctx.body = { workspaces: page.items, total: page.total };
    },
  );
}
