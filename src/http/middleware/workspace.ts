import type { Middleware } from 'koa';
import type { AppContext, AppState } from '../context';
import { badRequest } from '../problem';

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * Tenant and workspace context from X-Tenant-ID / X-Workspace-ID; a default workspace when absent. `named`
 * reads a workspace a request names in another way (a compatibility model name `kgrag:hybrid@<workspace>`);
 * it must agree with the header when both are given.
 */
export function workspaceContext(defaultWorkspaceId: string, named: (ctx: AppContext) => string | null = () => null): Middleware<AppState> {
  return async (ctx, next) => {
    const header = ctx.get('X-Workspace-ID').trim();
    const fromRequest = named(ctx as AppContext);
    if (fromRequest && header && fromRequest !== header) {
      throw badRequest(`the model names workspace '${fromRequest}' but X-Workspace-ID is '${header}'`);
    }
    const workspaceId = fromRequest || header || defaultWorkspaceId;
    const tenantId = ctx.get('X-Tenant-ID').trim() || undefined;
    if (!ID.test(workspaceId)) throw badRequest('X-Workspace-ID must be 1-128 letters, digits, ".", "_" or "-"');
    if (tenantId !== undefined && !ID.test(tenantId)) {
      throw badRequest('X-Tenant-ID must be 1-128 letters, digits, ".", "_" or "-"');
    }
    ctx.state.scope = tenantId ? { workspaceId, tenantId } : { workspaceId };
    await next();
  };
}
