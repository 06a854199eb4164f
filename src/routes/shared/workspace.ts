import { z } from 'zod';

/** A workspace as /workspaces and /tenants/:tenant_id/workspaces create and return it (docs/api.md §4.6). */

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// A slug names the workspace where its UUID does (headers, paths, model names), so it never looks like a UUID.
export const slug = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'must be 1-63 lower-case letters, digits or inner dashes')
  .refine((v) => !UUID_SHAPE.test(v), 'must not have the shape of a UUID');
export const name = z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters');
export const modelName = z.string().trim().min(1).max(200);

export const models = {
  llm_provider: modelName.optional(),
  llm_model: modelName.optional(),
  embedding_provider: modelName.optional(),
  embedding_model: modelName.optional(),
  embedding_dimension: z.number().int().min(1).max(4096).optional(),
};

/** docs/api.md §4.6: models default to the service's configured ones and are checked against the catalog. */
export const createWorkspaceSchema = z.object({
  name,
  slug: slug.optional().describe('Unique within the tenant; default: from the name'),
  description: z.string().max(2000).optional(),
  ...models,
});

/** `POST /tenants/:tenant_id/workspaces` (docs/api.md §4.6): `{name, slug, llm_provider, llm_model}`. */
export const tenantWorkspaceSchema = createWorkspaceSchema;

export const workspaceSchema = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    name: z.string(),
    slug: z.string(),
    description: z.string(),
    is_default: z.boolean(),
    llm_provider: z.string(),
    llm_model: z.string(),
    embedding_provider: z.string(),
    embedding_model: z.string(),
    embedding_dimension: z.number().int(),
    rebuild_task_id: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Workspace' });
