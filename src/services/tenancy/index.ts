export { createTenancyService, checkUuid, checkWorkspaceRef, isUuid, scopeOf, DEFAULT_TENANT_SLUG } from './service';
export type { TenancyService, TenantInput, WorkspaceInput, WorkspacePatch, RequestScope } from './service';
export type { TenancyDeps, WorkspaceStatsBody } from './deps';
