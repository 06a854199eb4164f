import type { AuthConfig } from '../../config/types';
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
}
