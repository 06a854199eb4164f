import type { Middleware } from 'koa';
import { type Role, roleCovers } from '../domain/accounts';
import { ForbiddenError, MalformedRequestError, NotFoundError, UnauthenticatedError } from '../domain/errors';
import { runWithUsageContext } from '../llm/usage';
import { withWorkspaceModels } from '../llm/workspace-models';
import type { AuthService } from '../services/auth';
import { type TenancyService, checkWorkspaceRef } from '../services/tenancy';
import type { AppContext, AppState } from './context';

/**
 * Who may call a route: `public` needs nothing (docs/api.md §5.2); a role needs a credential holding at least that
 * role in the workspace's tenant; `operator` needs the master key or an administrator of the first tenant.
 * `credentials` routes exchange credentials carried in their body (login, refresh, logout).
 */
export type Access = 'public' | 'credentials' | Role | 'operator';

export interface GuardSpec {
  access: Access;
  /** The route acts in the workspace of the request's headers (docs/api.md §5.1). */
  workspace: boolean;
}

export type Guard = (spec: GuardSpec) => Middleware<AppState>;

const MISSING = 'credentials are required: send X-API-Key or Authorization: Bearer';

/**
 * Authentication (401), role (403), then tenant and workspace context (400/403/404), in that order. `named` reads
 * a workspace a request names in another way than X-Workspace-ID (a compatibility model `kgrag:hybrid@<workspace>`);
 * it goes through the same access check, and must agree with the header when both are given.
 */
export function createGuard(auth: AuthService, tenancy: TenancyService, named: (ctx: AppContext) => string | null = () => null): Guard {
  return (spec) => async (ctx, next) => {
    if (spec.access === 'public' || spec.access === 'credentials') return next();
    const c = ctx as AppContext;
    if (c.state.credentialLookupFailure) throw c.state.credentialLookupFailure;
    if (c.state.credentialError) throw new UnauthenticatedError(c.state.credentialError.message);
    const principal = c.state.principal ?? (auth.open ? auth.openPrincipal : null);
    if (!principal) throw new UnauthenticatedError(MISSING);
    c.state.principal = principal;
    if (spec.access === 'operator') {
      if (!tenancy.isOperator(principal))
        throw new ForbiddenError('this operation needs the master key or an administrator of the first tenant');
    } else if (!roleCovers(principal.role, spec.access)) {
      throw new ForbiddenError(`this operation needs the ${spec.access} role; the credential holds ${principal.role}`);
    }
    if (spec.workspace) {
      const header = scopeHeader(c, 'x-workspace-id');
      const fromRequest = named(c);
      if (fromRequest) checkWorkspaceRef(fromRequest, 'the workspace the model names');
      const tenantId = scopeHeader(c, 'x-tenant-id');
      const resolved = await tenancy.resolve(principal, { tenantId, workspaceId: header ?? fromRequest });
      // The same workspace may be named by UUID in one place and by slug in the other.
      if (fromRequest && header && fromRequest !== header) {
        const other = await tenancy
          .resolve(principal, { tenantId, workspaceId: fromRequest })
          .catch((err: unknown) => (err instanceof NotFoundError ? null : Promise.reject(err)));
        if (other?.workspace.id !== resolved.workspace.id) {
          throw new MalformedRequestError(`the model names workspace '${fromRequest}' but X-Workspace-ID is '${header}'`);
        }
      }
      c.state.tenant = resolved.tenant;
      c.state.workspace = resolved.workspace;
      c.state.scope = resolved.scope;
      // Every provider call of this request uses the workspace's models unless the request names its own.
      // ... and is the workspace's cost.
      const usage = { workspace_id: resolved.scope.workspaceId, tenant_id: resolved.scope.tenantId };
      return runWithUsageContext(usage, () => withWorkspaceModels(resolved.workspace, next));
    }
    await next();
  };
}

/** A scope header as sent (trimmed), or null when absent: a header sent empty is refused as naming nothing. */
function scopeHeader(ctx: AppContext, name: string): string | null {
  const value = ctx.headers[name];
  if (value === undefined) return null;
  return (Array.isArray(value) ? value.join(',') : value).trim();
}
