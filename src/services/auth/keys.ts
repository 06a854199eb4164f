import { randomUUID } from 'node:crypto';
import { type ApiKeyRecord, type Principal, type Role, roleCovers } from '../../domain/accounts';
import { ForbiddenError, InvalidInputError, NotFoundError, stillThere } from '../../domain/errors';
import type { Page } from '../../domain/types';
import { isOperator, reachesTenant } from './access';
import type { AuthDeps } from './deps';
import { type PublicApiKey, publicApiKey } from './present';
import { newApiKey, sha256 } from './secrets';

export interface ApiKeyInput {
  name: string;
  role?: Role;
  workspace_id?: string;
  expires_at?: string;
  /** For keys made with the master key (or by an operator) for another tenant. */
  tenant_id?: string;
}

/** API keys: the key is returned once, at creation; only its SHA-256 and a short prefix are kept. */
export class KeyRing {
  constructor(
    private readonly deps: AuthDeps,
    private readonly operatorTenantId: () => string,
  ) {}

  async create(principal: Principal, input: ApiKeyInput): Promise<PublicApiKey & { key: string }> {
    const tenantId = input.tenant_id ?? principal.tenantId ?? this.operatorTenantId();
    if (!reachesTenant(principal, tenantId, this.operatorTenantId()) || !(await this.deps.accounts.tenants.get(tenantId))) {
      throw new NotFoundError(`tenant '${tenantId}' was not found`);
    }
    const role = input.role ?? principal.role;
    if (!roleCovers(principal.role, role)) throw new ForbiddenError(`a ${principal.role} cannot create a key with the role ${role}`);
    // The workspace by UUID or slug (docs/api.md §4.6), stored by UUID.
    let workspaceId = principal.workspaceId;
    if (input.workspace_id !== undefined) {
      const workspace = await this.deps.resolveWorkspace(tenantId, input.workspace_id);
      if (!workspace || workspace.tenant_id !== tenantId) throw new NotFoundError(`workspace '${input.workspace_id}' was not found`);
      workspaceId = workspace.id;
    }
    if (principal.workspaceId !== null && workspaceId !== principal.workspaceId) {
      throw new NotFoundError(`workspace '${input.workspace_id}' was not found`);
    }
    if (input.expires_at !== undefined && Date.parse(input.expires_at) <= Date.now()) {
      throw InvalidInputError.field('expires_at', 'must be in the future');
    }
    const { key, prefix } = newApiKey();
    const at = new Date().toISOString();
    const record: ApiKeyRecord = {
      id: randomUUID(),
      tenant_id: tenantId,
      // Keys made by the master key, or with an operator acting for another tenant, belong to no user.
      user_id: principal.userId !== null && principal.tenantId === tenantId ? principal.userId : null,
      name: input.name,
      prefix,
      key_hash: sha256(key),
      role,
      workspace_id: workspaceId ?? null,
      created_at: at,
      updated_at: at,
      last_used_at: null,
      expires_at: input.expires_at ? new Date(input.expires_at).toISOString() : null,
      revoked_at: null,
    };
    await this.deps.accounts.apiKeys.insert(record);
    this.deps.log.info({ key_id: record.id, tenant_id: tenantId, role, prefix }, 'API key created');
    return { ...publicApiKey(record), key };
  }

  /** Administrators see their tenant's keys (operators every key); others see the keys they made. */
  async list(principal: Principal, page: { limit: number; offset: number }): Promise<Page<PublicApiKey>> {
    const filter: Partial<ApiKeyRecord> = isOperator(principal, this.operatorTenantId())
      ? {}
      : principal.role === 'admin'
        ? { tenant_id: principal.tenantId! }
        : { tenant_id: principal.tenantId!, user_id: principal.userId };
    if (filter.user_id === null) return { items: [], total: 0 };
    const found = await this.deps.accounts.apiKeys.list(filter, page);
    return { items: found.items.map(publicApiKey), total: found.total };
  }

  async revoke(principal: Principal, id: string): Promise<PublicApiKey> {
    const key = await this.deps.accounts.apiKeys.get(id);
    const mayRevoke =
      key !== null &&
      (isOperator(principal, this.operatorTenantId()) ||
        (key.tenant_id === principal.tenantId &&
          (principal.role === 'admin' || (principal.userId !== null && key.user_id === principal.userId))));
    if (!key || !mayRevoke) throw new NotFoundError(`API key '${id}' was not found`);
    if (key.revoked_at !== null) return publicApiKey(key);
    const at = new Date().toISOString();
    const revoked = stillThere(await this.deps.accounts.apiKeys.update(id, { revoked_at: at, updated_at: at }), `API key '${id}'`);
    this.deps.log.info({ key_id: id, tenant_id: key.tenant_id }, 'API key revoked');
    return publicApiKey(revoked);
  }
}
