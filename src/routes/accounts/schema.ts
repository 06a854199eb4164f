import { z } from 'zod';
import { type Principal, ROLES } from '../../domain/accounts';
import type { PublicUser } from '../../services/auth';
import { atLeastOneOf, notBoth } from '../../http/validate';
import { pageQuery, uuid } from '../shared/params';

export const roleSchema = z.enum(ROLES);

/** A role in a request: EdgeQuake's `user` (its SDK's default) is our `editor` (docs/api.md §10). */
const requestRole = z.preprocess((v) => (v === 'user' ? 'editor' : v), roleSchema);

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
  id: z.string().describe("EdgeQuake name: the user's id (= user.id), else the key's id, else `master` or `open`"),
  username: z.string().nullable().describe('EdgeQuake name: = user.username'),
  email: z.string().nullable().describe('EdgeQuake name: = user.email'),
  created_at: z.string().nullable().describe('EdgeQuake name: = user.created_at'),
});

/** The caller, with EdgeQuake's flat user fields beside the spec's (docs/api.md §10). */
export function presentMe(p: Principal, operator: boolean, user: PublicUser | null): z.input<typeof meSchema> {
  return {
    kind: p.kind,
    tenant_id: p.tenantId,
    role: p.role,
    operator,
    workspace_id: p.workspaceId,
    user,
    id: user?.id ?? p.id,
    username: user?.username ?? null,
    email: user?.email ?? null,
    created_at: user?.created_at ?? null,
  };
}

export const logoutAllSchema = z.object({
  user_id: z.string(),
  revoked_sessions: z.number().int().describe('Refresh tokens revoked'),
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
  role: requestRole,
  tenant_id: uuid('tenant_id').optional().describe('Master key and operators only; default: the caller\u2019s tenant'),
});

export const updateUserSchema = atLeastOneOf(
  z.object({
    email: z.string().trim().email('must be an email address').max(254).optional(),
    password: password.optional(),
    role: requestRole.optional(),
    disabled: z.boolean().optional(),
  }),
  ['email', 'password', 'role', 'disabled'],
  'name at least one of email, password, role, disabled',
);

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
    last_used: z.string().nullable().optional().describe('EdgeQuake name: = last_used_at (in lists)'),
    expires_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  })
  .meta({ id: 'ApiKey' });

export const createApiKeySchema = notBoth(
  z.object({
    name: z.string().trim().min(1, 'is required').max(100),
    role: requestRole.optional().describe('At most the creator\u2019s role; default: the creator\u2019s role'),
    workspace_id: z.string().min(1).max(128).optional().describe('Bind the key to one workspace: its UUID or slug'),
    expires_at: z.string().datetime({ offset: true, message: 'must be an ISO 8601 date-time' }).optional(),
    expires_in: z
      .number()
      .int('must be an integer')
      .min(1, 'must be at least 1')
      .max(10 * 366 * 86_400, 'must be at most ten years')
      .optional()
      .describe('EdgeQuake name: seconds from now, instead of expires_at'),
    tenant_id: uuid('tenant_id').optional(),
  }),
  'expires_at',
  'expires_in',
  'give expires_at or expires_in, not both',
).transform(({ expires_in, ...rest }) =>
  expires_in === undefined ? rest : { ...rest, expires_at: new Date(Date.now() + expires_in * 1000).toISOString() },
);

/** A key as listed, with EdgeQuake's `last_used` beside `last_used_at` (docs/api.md §10). */
export function presentApiKey<K extends { last_used_at: string | null }>(key: K): K & { last_used: string | null } {
  return { ...key, last_used: key.last_used_at };
}
