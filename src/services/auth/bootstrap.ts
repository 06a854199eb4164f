import type { AuthDeps } from './deps';
import { newPassword } from './secrets';
import { UserDirectory } from './users';

export interface BootstrapResult {
  /** Set when this start created an administrator with a random password: shown once, on the terminal. */
  generatedAdmin: { username: string; password: string } | null;
}

const FIRST_ADMIN = 'admin';

/**
 * docs/api.md §5.4: with authentication on and no login-capable user, create the configured bootstrap
 * administrator; when none is configured and there is no master key either, create `admin` with a random
 * password, so that a fresh installation always has a way in.
 */
export async function bootstrapAdmin(deps: AuthDeps, operatorTenantId: string): Promise<BootstrapResult> {
  if (!deps.config.enabled || deps.config.devMode) return { generatedAdmin: null };
  if ((await deps.accounts.users.count({ disabled: false })) > 0) return { generatedAdmin: null };
  const directory = new UserDirectory(deps, () => operatorTenantId);
  const master = { kind: 'master' as const, id: 'bootstrap', tenantId: null, role: 'admin' as const, userId: null, workspaceId: null };
  const configured = deps.config.bootstrapAdmin;
  if (configured) {
    await directory.create(master, { ...configured, role: 'admin', tenant_id: operatorTenantId });
    deps.log.info({ username: configured.username }, 'created the bootstrap administrator from SERVICE_BOOTSTRAP_ADMIN_*');
    return { generatedAdmin: null };
  }
  if (deps.config.masterKey) return { generatedAdmin: null };
  const password = newPassword();
  await directory.create(master, { username: FIRST_ADMIN, email: 'admin@localhost', password, role: 'admin', tenant_id: operatorTenantId });
  deps.log.warn(
    { username: FIRST_ADMIN },
    'created the first administrator with a random password (printed once on the terminal); set SERVICE_BOOTSTRAP_ADMIN_* or SERVICE_MASTER_API_KEY to choose your own',
  );
  return { generatedAdmin: { username: FIRST_ADMIN, password } };
}
