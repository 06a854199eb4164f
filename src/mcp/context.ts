import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { type Principal, type Role, roleCovers } from '../domain/accounts';
import { ForbiddenError } from '../domain/errors';
import type { RateCategory } from '../http/context';
import { toProblem } from '../http/errors';
import { Problem } from '../http/problem';
import { runWithUsageContext } from '../llm/usage';
import { withWorkspaceModels } from '../llm/workspace-models';
import type { Runtime } from '../services/runtime';
import type { RequestScope } from '../services/tenancy';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What the HTTP endpoint (or the in-process caller) knows of the caller, handed to every handler through `authInfo.extra`. */
export interface Caller {
  principal: Principal;
  /** X-Tenant-ID and X-Workspace-ID as sent with the request (the workspace by id or slug), or null. */
  tenantId: string | null;
  workspace: string | null;
  requestId: string;
  /** Counts a call against the caller's rate limit of a category, as the matching REST route counts (429 past it). */
  rateLimit?: (category: RateCategory) => Promise<void>;
}

export function callerOf(extra: Extra): Caller {
  const caller = extra.authInfo?.extra?.caller as Caller | undefined;
  if (!caller) throw new Error('an MCP request arrived without its caller');
  return caller;
}

/**
 * The tenant and workspace a call acts in: the workspace argument, else the request's header, else the credential's
 * bound or default workspace; by id or slug, through the same access checks as the REST API (docs/api.md §5.1).
 * `work` runs with the workspace's models and its cost accounting, as a REST handler does.
 */
export async function inWorkspace<T>(
  rt: Runtime,
  extra: Extra,
  options: { workspace?: string | null; role: Role },
  work: (resolved: RequestScope, caller: Caller) => Promise<T>,
): Promise<T> {
  const caller = callerOf(extra);
  if (!roleCovers(caller.principal.role, options.role)) {
    throw new ForbiddenError(`this operation needs the ${options.role} role; the credential holds ${caller.principal.role}`);
  }
  const ref = options.workspace ?? caller.workspace;
  const workspaceId = ref ? await rt.tenancy.workspaceIdOf(caller.principal, ref, caller.tenantId) : null;
  const resolved = await rt.tenancy.resolve(caller.principal, { tenantId: caller.tenantId, workspaceId });
  const usage = { workspace_id: resolved.scope.workspaceId, tenant_id: resolved.scope.tenantId };
  return runWithUsageContext(usage, () => withWorkspaceModels(resolved.workspace, () => work(resolved, caller)));
}

/** The problem details of an error, as the REST API would answer it; an unknown error is logged and becomes a 500. */
export function problemOf(rt: Runtime, err: unknown, instance: string, requestId: string): Record<string, unknown> {
  let problem = toProblem(err);
  if (!problem) {
    rt.log.error({ err, requestId, instance }, 'unhandled error in an MCP request');
    problem = new Problem(500, `internal error; quote request id ${requestId}`, { request_id: requestId });
  }
  return problem.body(rt.config.errorTypeBase, instance);
}
