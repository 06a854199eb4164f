import type { Middleware } from 'koa';
import type { AppState } from '../context';
import { badRequest } from '../problem';

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Tenant and workspace context from X-Tenant-ID / X-Workspace-ID; a default workspace when absent. */
export function workspaceContext(defaultWorkspaceId: string): Middleware<AppState> {
  return async (ctx, next) => {
    const workspaceId = ctx.get('X-Workspace-ID').trim() || defaultWorkspaceId;
    const tenantId = ctx.get('X-Tenant-ID').trim() || undefined;
    if (!ID.test(workspaceId)) throw badRequest('X-Workspace-ID must be 1-128 letters, digits, ".", "_" or "-"');
    if (tenantId !== undefined && !ID.test(tenantId)) {
      throw badRequest('X-Tenant-ID must be 1-128 letters, digits, ".", "_" or "-"');
    }
    ctx.state.scope = tenantId ? { workspaceId, tenantId } : { workspaceId };
    await next();
  };
}
