import type { AuthConfig } from '../../config/types';
import type { WorkspaceRecord } from '../../domain/accounts';
import type { Logger } from '../../logger';
import type { AccountStores } from '../../store/ports';
import type { LoginThrottle } from './throttle';
import type { AccessTokens } from './tokens';

export interface AuthDeps {
  config: AuthConfig;
  accounts: AccountStores;
  tokens: AccessTokens;
  throttle: LoginThrottle;
  log: Logger;
  /** A workspace of the tenant named by UUID or slug (the tenancy service's `resolveWorkspaceRef`), or null. */
  resolveWorkspace: (tenantId: string, idOrSlug: string) => Promise<WorkspaceRecord | null>;
}
