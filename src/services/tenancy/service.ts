import { randomUUID } from 'node:crypto';
import type { Principal, TenantRecord, WorkspaceRecord } from '../../domain/accounts';
import { ConflictError, ForbiddenError, MalformedRequestError, NotFoundError, stillThere } from '../../domain/errors';
import type { Page, Scope } from '../../domain/types';
import { isOperator, reachesTenant } from '../auth/access';
import type { TenancyDeps, WorkspaceStatsBody } from './deps';
import { type ModelChoice, resolveModels, sameEmbedding } from './models';
import { SLUG, slugify } from './slug';
import { newRebuildTaskId, rebuildTask, runRebuild } from './rebuild';

export const DEFAULT_TENANT_SLUG = 'default';
/**
 * The id the first tenant is created with: EdgeQuake's default tenant's, which its database migrations seed, so that
 * clients written for EdgeQuake that name it (its SDK's end-to-end suite does) find this service's first tenant
 * (docs/api.md §10). A first tenant created before keeps its id.
 */
export const DEFAULT_TENANT_ID = '00000000-0000-0000-0000-000000000002';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface TenantInput {
  name: string;
  slug?: string;
  plan?: string;
}

export interface WorkspaceInput extends ModelChoice {
  name: string;
  slug?: string;
  description?: string;
}

export interface WorkspacePatch extends ModelChoice {
  name?: string;
  slug?: string;
  description?: string;
}

/** The tenant and workspace a request acts in (docs/api.md §5.1). */
export interface RequestScope {
  tenant: TenantRecord;
  workspace: WorkspaceRecord;
  scope: Scope;
}

export function scopeOf(workspace: WorkspaceRecord): Scope {
  return { workspaceId: workspace.id };
}

export function checkUuid(value: string, what: string): void {
  if (!UUID.test(value)) throw new MalformedRequestError(`${what} must be a UUID, got '${value.slice(0, 64)}'`);
}

/** A workspace reference as a request may send it: the workspace's UUID or its slug (unique in its tenant). */
export function checkWorkspaceRef(value: string, what: string): void {
  if (!UUID.test(value) && !SLUG.test(value)) {
    throw new MalformedRequestError(`${what} must be a workspace UUID or slug, got '${value.slice(0, 64)}'`);
  }
}

export const isUuid = (value: string): boolean => UUID.test(value);

/** A slug from a workspace's name that cannot be read as a UUID. */
function workspaceSlug(name: string): string {
  const slug = slugify(name);
  return UUID.test(slug) ? `ws-${slug}` : slug;
}

export type TenancyService = ReturnType<typeof createTenancyService>;

/** Tenants and workspaces: creation with a default workspace, isolation checks, deletion with every byte of data. */
export function createTenancyService(deps: TenancyDeps) {
  const { accounts } = deps.stores;
  let operatorTenantId = '';

  const now = () => new Date().toISOString();

  const workspaceNotFound = (ref: string) =>
    new NotFoundError(`workspace '${ref.slice(0, 64)}' was not found (a workspace is named by its UUID or its slug)`);
  const tenantNotFound = (id: string) => new NotFoundError(`tenant '${id}' was not found`);

  function newWorkspace(tenantId: string, input: WorkspaceInput, isDefault: boolean): WorkspaceRecord {
    const at = now();
    return {
      id: randomUUID(),
      tenant_id: tenantId,
      name: input.name,
      slug: input.slug ?? workspaceSlug(input.name),
      description: input.description ?? '',
      is_default: isDefault,
      ...resolveModels(deps.config, input),
      rebuild_task_id: null,
      created_at: at,
      updated_at: at,
    };
  }

  /** A tenant the principal may see, or 404 (another tenant's id reads exactly like an unknown one). */
  async function visibleTenant(principal: Principal, id: string): Promise<TenantRecord> {
    checkUuid(id, 'tenant id');
    const tenant = reachesTenant(principal, id, operatorTenantId) ? await accounts.tenants.get(id) : null;
    if (!tenant) throw tenantNotFound(id);
    return tenant;
  }

  /**
   * The workspace a reference names: a UUID names it wherever it is, a slug names it in the given tenant. Null when
   * there is none. Access is not checked here (see `visibleWorkspace`).
   */
  async function resolveWorkspaceRef(tenantId: string, idOrSlug: string): Promise<WorkspaceRecord | null> {
    if (UUID.test(idOrSlug)) return accounts.workspaces.get(idOrSlug.toLowerCase());
    if (!SLUG.test(idOrSlug)) return null;
    return accounts.workspaces.findOne({ tenant_id: tenantId, slug: idOrSlug });
  }

  /**
   * A workspace the principal may act in, named by UUID or by slug (a slug is looked up in `tenantId`, else the
   * principal's tenant, else the first tenant); 404 otherwise, whether it is unknown or another tenant's.
   */
  async function visibleWorkspace(principal: Principal, ref: string, tenantId: string | null = null): Promise<WorkspaceRecord> {
    const workspace = await resolveWorkspaceRef(tenantId ?? principal.tenantId ?? operatorTenantId, ref);
    if (!workspace || !reachesTenant(principal, workspace.tenant_id, operatorTenantId)) throw workspaceNotFound(ref);
    if (principal.workspaceId !== null && principal.workspaceId !== workspace.id) throw workspaceNotFound(ref);
    return workspace;
  }

  async function holdsData(workspace: WorkspaceRecord): Promise<boolean> {
    const scope = scopeOf(workspace);
    const counts = await deps.stores.documents.countByStatus(scope);
    if (Object.values(counts).some((n) => n > 0)) return true;
    return (await deps.stores.vectors.count(scope, 'chunk')) > 0;
  }

  /** Stops the workspace's tasks, waits for running ones to end, then removes its data and its records. */
  async function dropWorkspaceData(workspace: WorkspaceRecord): Promise<void> {
    const scope = scopeOf(workspace);
    await deps.stopTasks(scope);
    for (let waited = 0; waited < 30_000 && (await deps.liveTasks(scope)).some((t) => t.status === 'running'); waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Cache entries of the tasks that just ended are written now, not into the dropped workspace later.
    await deps.llmCache.settle();
    await deps.stores.dropWorkspace(scope);
    await accounts.metricsSnapshots.deleteWhere({ workspace_id: workspace.id });
    await accounts.savedViews.deleteWhere({ workspace_id: workspace.id });
    const at = now();
    const bound = await accounts.apiKeys.list({ workspace_id: workspace.id, revoked_at: null }, { limit: 100_000, offset: 0 });
    for (const key of bound.items) await accounts.apiKeys.update(key.id, { revoked_at: at, updated_at: at });
  }

  const service = {
    get operatorTenantId() {
      return operatorTenantId;
    },

    /** The first tenant and its default workspace, created when missing; called once at start-up. */
    async ensureDefaultTenant(): Promise<TenantRecord> {
      let tenant = await accounts.tenants.findOne({ slug: DEFAULT_TENANT_SLUG });
      if (!tenant) {
        const at = now();
        tenant = { id: DEFAULT_TENANT_ID, name: 'Default', slug: DEFAULT_TENANT_SLUG, plan: 'default', created_at: at, updated_at: at };
        try {
          await accounts.tenants.insert(tenant);
          await accounts.workspaces.insert(newWorkspace(tenant.id, { name: 'Default workspace', slug: 'default' }, true));
          deps.log.info({ tenant_id: tenant.id }, 'created the default tenant and its default workspace');
        } catch (err) {
          // Another instance starting at the same moment created it first.
          if (!(err instanceof ConflictError)) throw err;
          tenant = (await accounts.tenants.findOne({ slug: DEFAULT_TENANT_SLUG }))!;
        }
      }
      operatorTenantId = tenant.id;
      return tenant;
    },

    isOperator: (principal: Principal) => isOperator(principal, operatorTenantId),

    resolveWorkspaceRef,

    /**
     * The tenant and workspace of a request from its headers, after authentication (docs/api.md §5.3). A
     * credential of one tenant naming another tenant is refused (403, whether that tenant exists or not); a
     * workspace that does not exist, or belongs to another tenant, is 404; no header means the credential's
     * bound workspace, else the tenant's default workspace.
     */
    async resolve(principal: Principal, headers: { tenantId: string | null; workspaceId: string | null }): Promise<RequestScope> {
      if (headers.tenantId !== null) {
        checkUuid(headers.tenantId, 'X-Tenant-ID');
        if (!reachesTenant(principal, headers.tenantId, operatorTenantId)) {
          throw new ForbiddenError('this credential cannot act for the tenant named by X-Tenant-ID');
        }
      }
      if (headers.workspaceId !== null) checkWorkspaceRef(headers.workspaceId, 'X-Workspace-ID');
      const workspaceId = headers.workspaceId ?? principal.workspaceId;
      let workspace: WorkspaceRecord | null;
      if (workspaceId !== null) {
        workspace = await visibleWorkspace(principal, workspaceId, headers.tenantId);
        if (headers.tenantId !== null && workspace.tenant_id !== headers.tenantId) throw workspaceNotFound(workspaceId);
      } else {
        const tenantId = headers.tenantId ?? principal.tenantId ?? operatorTenantId;
        workspace = await accounts.workspaces.findOne({ tenant_id: tenantId, is_default: true });
        if (!workspace) {
          // A tenant id that names no tenant says so, rather than that such a tenant lacks a workspace.
          if (!(await accounts.tenants.get(tenantId))) throw new NotFoundError(`unknown tenant '${tenantId}'`);
          throw new NotFoundError(`tenant '${tenantId}' has no default workspace; name one with X-Workspace-ID`);
        }
      }
      const tenant = await accounts.tenants.get(workspace.tenant_id);
      if (!tenant) throw workspaceNotFound(workspace.id);
      return { tenant, workspace, scope: scopeOf(workspace) };
    },

    /**
     * The id of a workspace named by id or by slug: a UUID is taken as it is (resolve checks it); a slug is looked
     * up in the named tenant, else the credential's, else the first tenant. An unknown slug is 404, as an unknown id.
     */
    async workspaceIdOf(principal: Principal, ref: string, tenantId: string | null): Promise<string> {
      if (UUID.test(ref)) return ref;
      const tenant = tenantId ?? principal.tenantId ?? operatorTenantId;
      const workspace = UUID.test(tenant) ? await resolveWorkspaceRef(tenant, ref) : null;
      if (!workspace) throw workspaceNotFound(ref.slice(0, 64));
      return workspace.id;
    },

    async createTenant(input: TenantInput): Promise<{ tenant: TenantRecord; default_workspace: WorkspaceRecord }> {
      const at = now();
      const tenant: TenantRecord = {
        id: randomUUID(),
        name: input.name,
        slug: input.slug ?? slugify(input.name),
        plan: input.plan ?? 'free',
        created_at: at,
        updated_at: at,
      };
      const workspace = newWorkspace(tenant.id, { name: 'Default workspace', slug: 'default' }, true);
      await accounts.tenants.insert(tenant);
      await accounts.workspaces.insert(workspace);
      deps.log.info({ tenant_id: tenant.id, slug: tenant.slug }, 'tenant created');
      return { tenant, default_workspace: workspace };
    },

    async listTenants(principal: Principal, page: { limit: number; offset: number }): Promise<Page<TenantRecord>> {
      if (isOperator(principal, operatorTenantId)) return accounts.tenants.list({}, page);
      const own = principal.tenantId ? await accounts.tenants.get(principal.tenantId) : null;
      return { items: own && page.offset === 0 && page.limit > 0 ? [own] : [], total: own ? 1 : 0 };
    },

    getTenant: visibleTenant,

    /** A tenant with how many workspaces and users it holds. */
    async tenantDetail(principal: Principal, id: string) {
      const tenant = await visibleTenant(principal, id);
      const one = { limit: 1, offset: 0 };
      const [workspaces, users] = await Promise.all([
        accounts.workspaces.list({ tenant_id: id }, one),
        accounts.users.list({ tenant_id: id }, one),
      ]);
      return { ...tenant, workspace_count: workspaces.total, user_count: users.total };
    },

    async updateTenant(
      principal: Principal,
      id: string,
      patch: Partial<Pick<TenantRecord, 'name' | 'slug' | 'plan'>>,
    ): Promise<TenantRecord> {
      const tenant = await visibleTenant(principal, id);
      if (patch.slug !== undefined && tenant.id === operatorTenantId && patch.slug !== DEFAULT_TENANT_SLUG) {
        throw new ConflictError(`the first tenant keeps its slug '${DEFAULT_TENANT_SLUG}'`);
      }
      return stillThere(await accounts.tenants.update(id, { ...patch, updated_at: now() }), `tenant '${id}'`);
    },

    /** Refused while the tenant holds workspaces beyond an empty default one, unless forced; then everything goes. */
    async deleteTenant(principal: Principal, id: string, force: boolean): Promise<{ deleted_workspaces: number; deleted_users: number }> {
      const tenant = await visibleTenant(principal, id);
      if (tenant.id === operatorTenantId) throw new ConflictError('the first tenant cannot be deleted');
      const workspaces = (await accounts.workspaces.list({ tenant_id: id }, { limit: 100_000, offset: 0 })).items;
      if (!force) {
        const extra = workspaces.filter((w) => !w.is_default);
        const busy = await Promise.all(workspaces.map(holdsData));
        if (extra.length > 0 || busy.some(Boolean)) {
          throw new ConflictError(
            `tenant '${id}' still has ${workspaces.length} workspace(s) or data; delete them first or pass force=true`,
          );
        }
      }
      for (const workspace of workspaces) {
        await dropWorkspaceData(workspace);
        await accounts.workspaces.delete(workspace.id);
      }
      const users = (await accounts.users.list({ tenant_id: id }, { limit: 100_000, offset: 0 })).items;
      for (const user of users) await accounts.refreshTokens.deleteWhere({ user_id: user.id });
      await accounts.users.deleteWhere({ tenant_id: id });
      await accounts.apiKeys.deleteWhere({ tenant_id: id });
      await accounts.tenants.delete(id);
      deps.log.info({ tenant_id: id, workspaces: workspaces.length, users: users.length }, 'tenant deleted');
      return { deleted_workspaces: workspaces.length, deleted_users: users.length };
    },

    /** In the principal's tenant, or (master key, operators) in the tenant named. */
    async createWorkspace(principal: Principal, tenantId: string | null, input: WorkspaceInput): Promise<WorkspaceRecord> {
      const target = tenantId ?? principal.tenantId ?? operatorTenantId;
      await visibleTenant(principal, target);
      const workspace = newWorkspace(target, input, false);
      await accounts.workspaces.insert(workspace);
      return workspace;
    },

    async listWorkspaces(
      principal: Principal,
      tenantId: string | null,
      page: { limit: number; offset: number },
    ): Promise<Page<WorkspaceRecord>> {
      if (principal.workspaceId !== null) {
        const own = await accounts.workspaces.get(principal.workspaceId);
        return { items: own && page.offset === 0 ? [own] : [], total: own ? 1 : 0 };
      }
      if (tenantId !== null) await visibleTenant(principal, tenantId);
      const filter =
        tenantId !== null ? { tenant_id: tenantId } : isOperator(principal, operatorTenantId) ? {} : { tenant_id: principal.tenantId! };
      return accounts.workspaces.list(filter, page);
    },

    getWorkspace: (principal: Principal, ref: string) => visibleWorkspace(principal, ref),

    /** Embedding changes of a workspace that holds data need a rebuild: mixed dimensions never reach an index. */
    async updateWorkspace(principal: Principal, ref: string, patch: WorkspacePatch): Promise<WorkspaceRecord> {
      const workspace = await visibleWorkspace(principal, ref);
      const id = workspace.id;
      // Clients name a tenant's default workspace `default` (docs/api.md §4.6): its slug stays.
      if (workspace.is_default && patch.slug !== undefined && patch.slug !== workspace.slug) {
        throw new ConflictError(`workspace '${id}' is its tenant's default workspace; its slug stays '${workspace.slug}'`);
      }
      const models = resolveModels(deps.config, patch, workspace);
      if (!sameEmbedding(models, workspace) && (await holdsData(workspace))) {
        throw new ConflictError(
          `workspace '${id}' holds embedded data; change its embedding model or dimension with POST /workspaces/${id}/rebuild-embeddings`,
        );
      }
      const { name, slug, description } = patch;
      const next = {
        ...(name !== undefined && { name }),
        ...(slug !== undefined && { slug }),
        ...(description !== undefined && { description }),
      };
      return stillThere(await accounts.workspaces.update(id, { ...next, ...models, updated_at: now() }), `workspace '${id}'`);
    },

    async deleteWorkspace(principal: Principal, ref: string): Promise<void> {
      const workspace = await visibleWorkspace(principal, ref);
      const id = workspace.id;
      if (workspace.is_default) throw new ConflictError(`workspace '${id}' is its tenant's default workspace; delete the tenant instead`);
      await accounts.workspaces.delete(id);
      await dropWorkspaceData(workspace);
      deps.log.info({ workspace_id: id, tenant_id: workspace.tenant_id }, 'workspace deleted with its data');
    },

    async stats(principal: Principal, ref: string): Promise<WorkspaceStatsBody> {
      const workspace = await visibleWorkspace(principal, ref);
      return deps.stats(scopeOf(workspace));
    },

    /** Stores the workspace's statistics now (docs/api.md §4.6 metrics-snapshot). */
    async snapshot(
      principal: Principal,
      ref: string,
    ): Promise<{ id: string; workspace_id: string; created_at: string; stats: WorkspaceStatsBody }> {
      const workspace = await visibleWorkspace(principal, ref);
      const id = workspace.id;
      const stats = await deps.stats(scopeOf(workspace));
      const at = now();
      const record = { id: randomUUID(), workspace_id: id, stats_json: JSON.stringify(stats), created_at: at, updated_at: at };
      await accounts.metricsSnapshots.insert(record);
      return { id: record.id, workspace_id: id, created_at: at, stats };
    },

    /**
     * Starts re-embedding the workspace with another embedding model or dimension (a task; queries keep the old
     * vectors until the swap). One rebuild at a time per workspace.
     */
    async rebuildEmbeddings(principal: Principal, ref: string, choice: ModelChoice) {
      const workspace = await visibleWorkspace(principal, ref);
      const id = workspace.id;
      const models = resolveModels(deps.config, choice, workspace);
      const scope = scopeOf(workspace);
      if (workspace.rebuild_task_id) {
        const running = await deps.stores.tasks.get(scope, workspace.rebuild_task_id);
        if (running && (running.status === 'running' || running.status === 'pending')) {
          throw new ConflictError(`workspace '${id}' is already rebuilding its embeddings (task ${running.id})`, running.id);
        }
      }
      const task = rebuildTask(newRebuildTaskId(), deps.config.instanceId, deps.config.taskLeaseMs);
      await deps.stores.tasks.insert(scope, task);
      await accounts.workspaces.update(id, { rebuild_task_id: task.id, updated_at: now() });
      const target = {
        embedding_provider: models.embedding_provider,
        embedding_model: models.embedding_model,
        embedding_dimension: models.embedding_dimension,
      };
      void runRebuild(deps, workspace, target, task);
      return { task_id: task.id, status: 'running' as const, workspace_id: id, ...target };
    },

    /** Re-extracts every document with the given LLM (stored as the workspace's from now on), as document tasks. */
    async rebuildKnowledgeGraph(principal: Principal, ref: string, choice: Pick<ModelChoice, 'llm_provider' | 'llm_model'>) {
      const workspace = await visibleWorkspace(principal, ref);
      const id = workspace.id;
      const models = resolveModels(deps.config, choice, workspace);
      await accounts.workspaces.update(id, { llm_provider: models.llm_provider, llm_model: models.llm_model, updated_at: now() });
      const queued = await deps.reprocessAll(scopeOf(workspace));
      return {
        workspace_id: id,
        llm_provider: models.llm_provider,
        llm_model: models.llm_model,
        queued: queued.count,
        task_ids: queued.task_ids,
      };
    },

    async reprocessDocuments(principal: Principal, ref: string) {
      const workspace = await visibleWorkspace(principal, ref);
      const queued = await deps.reprocessAll(scopeOf(workspace));
      return { workspace_id: workspace.id, queued: queued.count, task_ids: queued.task_ids };
    },

    /** Stored snapshots of the last `days` days, oldest first. */
    async history(principal: Principal, ref: string, days: number) {
      const { id } = await visibleWorkspace(principal, ref);
      const since = new Date(Date.now() - days * 86_400_000).toISOString();
      const all = await accounts.metricsSnapshots.list({ workspace_id: id }, { limit: 100_000, offset: 0 });
      const points = all.items
        .filter((s) => s.created_at >= since)
        .map((s) => ({ id: s.id, created_at: s.created_at, stats: JSON.parse(s.stats_json) as WorkspaceStatsBody }));
      return { workspace_id: id, days, since, snapshots: points, total: points.length };
    },
  };
  return service;
}
