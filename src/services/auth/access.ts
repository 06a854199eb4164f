import type { Principal } from '../../domain/accounts';

/**
 * Who may act on which tenant. The master key, and an open API (dev mode, or authentication off), act on every
 * tenant. The administrators of the first tenant (the one `default` was created as) operate the platform: they
 * manage every tenant. Everyone else acts on their own tenant only.
 */
export function isOperator(principal: Principal, operatorTenantId: string): boolean {
  return principal.tenantId === null || (principal.tenantId === operatorTenantId && principal.role === 'admin');
}

export function reachesTenant(principal: Principal, tenantId: string, operatorTenantId: string): boolean {
  return principal.tenantId === tenantId || isOperator(principal, operatorTenantId);
}
