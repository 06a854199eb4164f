import { randomUUID } from 'node:crypto';
import { type Principal, type Role, type UserRecord, roleCovers } from '../../domain/accounts';
import { ForbiddenError, NotFoundError, stillThere } from '../../domain/errors';
import type { Page } from '../../domain/types';
import { isOperator, reachesTenant } from './access';
import type { AuthDeps } from './deps';
import { hashPassword } from './passwords';
import { type PublicUser, publicUser } from './present';
import { endSessions } from './sessions';

export interface UserInput {
  username: string;
  email: string;
  password: string;
  role: Role;
  tenant_id?: string;
}

export interface UserPatch {
  email?: string;
  password?: string;
  role?: Role;
  disabled?: boolean;
}

/** Users of a tenant, managed by its administrators, by the operators and with the master key. */
export class UserDirectory {
  constructor(
    private readonly deps: AuthDeps,
    private readonly operatorTenantId: () => string,
  ) {}

  private async visible(principal: Principal, id: string): Promise<UserRecord> {
    const user = await this.deps.accounts.users.get(id);
    if (!user || !reachesTenant(principal, user.tenant_id, this.operatorTenantId())) throw new NotFoundError(`user '${id}' was not found`);
    return user;
  }

  private checkGrant(principal: Principal, role: Role): void {
    if (!roleCovers(principal.role, role)) throw new ForbiddenError(`a ${principal.role} cannot grant the role ${role}`);
  }

  async create(principal: Principal, input: UserInput): Promise<PublicUser> {
    const tenantId = input.tenant_id ?? principal.tenantId ?? this.operatorTenantId();
    if (!reachesTenant(principal, tenantId, this.operatorTenantId()) || !(await this.deps.accounts.tenants.get(tenantId))) {
      throw new NotFoundError(`tenant '${tenantId}' was not found`);
    }
    this.checkGrant(principal, input.role);
    const at = new Date().toISOString();
    const user: UserRecord = {
      id: randomUUID(),
      tenant_id: tenantId,
      username: input.username,
      email: input.email,
      role: input.role,
      password_hash: await hashPassword(input.password),
      disabled: false,
      created_at: at,
      updated_at: at,
    };
    await this.deps.accounts.users.insert(user);
    this.deps.log.info({ user_id: user.id, tenant_id: tenantId, role: user.role }, 'user created');
    return publicUser(user);
  }

  async list(principal: Principal, tenantId: string | null, page: { limit: number; offset: number }): Promise<Page<PublicUser>> {
    const operator = isOperator(principal, this.operatorTenantId());
    const filter = tenantId !== null ? { tenant_id: tenantId } : operator ? {} : { tenant_id: principal.tenantId! };
    if (filter.tenant_id !== undefined && !reachesTenant(principal, filter.tenant_id, this.operatorTenantId()))
      return { items: [], total: 0 };
    const found = await this.deps.accounts.users.list(filter, page);
    return { items: found.items.map(publicUser), total: found.total };
  }

  async get(principal: Principal, id: string): Promise<PublicUser> {
    return publicUser(await this.visible(principal, id));
  }

  /** A password change, a demotion or disabling ends the user's sessions (refresh tokens). */
  async update(principal: Principal, id: string, patch: UserPatch): Promise<PublicUser> {
    const user = await this.visible(principal, id);
    if (patch.role !== undefined) this.checkGrant(principal, patch.role);
    const changes: Partial<UserRecord> = { updated_at: new Date().toISOString() };
    if (patch.email !== undefined) changes.email = patch.email;
    if (patch.role !== undefined) changes.role = patch.role;
    if (patch.disabled !== undefined) changes.disabled = patch.disabled;
    if (patch.password !== undefined) changes.password_hash = await hashPassword(patch.password);
    const updated = stillThere(await this.deps.accounts.users.update(user.id, changes), `user '${id}'`);
    if (patch.password !== undefined || patch.disabled === true || (patch.role !== undefined && patch.role !== user.role)) {
      await endSessions(this.deps, user.id);
    }
    return publicUser(updated);
  }

  /** The user's keys and sessions go with them; their access tokens stop working at once (the user is looked up). */
  async delete(principal: Principal, id: string): Promise<void> {
    const user = await this.visible(principal, id);
    await this.deps.accounts.apiKeys.deleteWhere({ user_id: user.id });
    await this.deps.accounts.refreshTokens.deleteWhere({ user_id: user.id });
    await this.deps.accounts.users.delete(user.id);
    this.deps.log.info({ user_id: user.id, tenant_id: user.tenant_id }, 'user deleted');
  }
}
