import { z } from 'zod';
import { ROLES } from '../../domain/accounts';
import { queryInt } from '../../http/validate';

export const uuid = (what: string) => z.string().uuid(`${what} must be a UUID`);
export const idParams = (what: string) => z.object({ id: uuid(what) });

export const pageQuery = z.object({
  limit: queryInt(50, 1, 500),
  offset: queryInt(0, 0, Number.MAX_SAFE_INTEGER),
});

export const roleSchema = z.enum(ROLES);

export const userSchema = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    username: z.string(),
    email: z.string(),
    role: roleSchema,
    disabled: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'User' });

export const loginSchema = z.object({
  username: z.string().min(1, 'is required').max(128),
  password: z.string().min(1, 'is required').max(1024),
});

export const refreshSchema = z.object({ refresh_token: z.string().min(1, 'is required').max(512) });

export const sessionSchema = z
  .object({
    access_token: z.string().describe('HS256 JWT; send as Authorization: Bearer'),
    refresh_token: z.string().describe('Exchange at /auth/refresh for a new session; each works once'),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().describe('Seconds the access token lives'),
    refresh_expires_in: z.number().int(),
    user: userSchema,
  })
  .meta({ id: 'Session' });

export const meSchema = z.object({
  kind: z.enum(['master', 'user', 'api_key', 'open']),
  tenant_id: z.string().nullable().describe('null: every tenant (master key, open API)'),
  role: roleSchema,
  operator: z.boolean().describe('May manage every tenant'),
  workspace_id: z.string().nullable().describe('The workspace a key is bound to'),
  user: userSchema.nullable(),
});

const username = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/, 'must be 1-128 letters, digits, ".", "_", "@" or "-"');
const password = z.string().min(8, 'must be at least 8 characters').max(1024, 'must be at most 1024 characters');

export const createUserSchema = z.object({
  username,
  email: z.string().trim().email('must be an email address').max(254),
  password,
  role: roleSchema,
  tenant_id: uuid('tenant_id').optional().describe('Master key and operators only; default: the caller\u2019s tenant'),
});

export const updateUserSchema = z
  .object({
    email: z.string().trim().email('must be an email address').max(254).optional(),
    password: password.optional(),
    role: roleSchema.optional(),
    disabled: z.boolean().optional(),
  })
  .refine((p) => Object.keys(p).length > 0, 'name at least one of email, password, role, disabled');

export const userListQuery = pageQuery.extend({ tenant_id: uuid('tenant_id').optional() });

export const apiKeySchema = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    user_id: z.string().nullable(),
    name: z.string(),
    prefix: z.string().describe('The first characters of the key'),
    role: roleSchema,
    workspace_id: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    last_used_at: z.string().nullable(),
    expires_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  })
  .meta({ id: 'ApiKey' });

export const createApiKeySchema = z.object({
  name: z.string().trim().min(1, 'is required').max(100),
  role: roleSchema.optional().describe('At most the creator\u2019s role; default: the creator\u2019s role'),
  workspace_id: uuid('workspace_id').optional().describe('Bind the key to one workspace'),
  expires_at: z.string().datetime({ offset: true, message: 'must be an ISO 8601 date-time' }).optional(),
  tenant_id: uuid('tenant_id').optional(),
});
