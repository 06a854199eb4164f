import type { Principal } from '../../domain/accounts';
import type { AuthConfig } from '../../config/types';
import type { Logger } from '../../logger';
import type { WindowCounters } from '../../store/counter-port';
import type { AccountStores } from '../../store/ports';
import { type Credentials, authenticate } from './authenticate';
import { bootstrapAdmin } from './bootstrap';
import type { AuthDeps } from './deps';
import { KeyRing } from './keys';
import { endSessions, login, logout, refresh } from './sessions';
import { LoginThrottle } from './throttle';
import { AccessTokens } from './tokens';
import { UserDirectory } from './users';

export type { Credentials } from './authenticate';
export type { Session } from './sessions';
export type { PublicApiKey, PublicUser } from './present';
export type { UserInput, UserPatch } from './users';
export type { ApiKeyInput } from './keys';
export type { BootstrapResult } from './bootstrap';
export { isOperator, reachesTenant } from './access';
export { sharedSigningKey } from './signing-key';

export type AuthService = ReturnType<typeof createAuthService>;

/** Credentials, sessions, users and keys (docs/api.md §5). */
export function createAuthService(options: {
  config: AuthConfig;
  accounts: AccountStores;
  log: Logger;
  operatorTenantId: () => string;
  resolveWorkspace: AuthDeps['resolveWorkspace'];
  /** Where failed logins are counted: shared by every instance when given (Redis), this process's memory otherwise. */
  loginCounters?: WindowCounters;
  /** The signing key kept in the store, used when `SERVICE_JWT_SECRET` is not set (`sharedSigningKey`). */
  sharedSigningKey?: string;
}) {
  const deps: AuthDeps = {
    config: options.config,
    accounts: options.accounts,
    tokens: new AccessTokens(options.config, options.sharedSigningKey),
    throttle: new LoginThrottle(options.config.loginAttempts, options.loginCounters),
    log: options.log,
    resolveWorkspace: options.resolveWorkspace,
  };
  const open: Principal = { kind: 'open', id: 'open', tenantId: null, role: 'admin', userId: null, workspaceId: null };
  return {
    /** Whether requests without credentials are let in (dev mode, or authentication off). */
    get open(): boolean {
      return !options.config.enabled || options.config.devMode;
    },
    openPrincipal: open,
    authenticate: (credentials: Credentials) => authenticate(deps, credentials),
    login: (username: string, password: string, address: string) => login(deps, username, password, address),
    refresh: (token: string) => refresh(deps, token),
    logout: (token: string) => logout(deps, token),
    /** Revokes every refresh token of a user (logout with the access token alone); answers how many. */
    logoutEverywhere: (userId: string) => endSessions(deps, userId),
    users: new UserDirectory(deps, options.operatorTenantId),
    keys: new KeyRing(deps, options.operatorTenantId),
    bootstrap: () => bootstrapAdmin(deps, options.operatorTenantId()),
  };
}
