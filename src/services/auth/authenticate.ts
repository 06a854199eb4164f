import type { ApiKeyRecord, Principal, UserRecord } from '../../domain/accounts';
import { roleCovers } from '../../domain/accounts';
import { UnauthenticatedError } from '../../domain/errors';
import type { AuthDeps } from './deps';
import { sameSecret, sha256 } from './secrets';
import { looksLikeJwt } from './tokens';

/** What a request presented: `X-API-Key`, and/or the token of `Authorization: Bearer`. */
export interface Credentials {
  apiKey: string | null;
  bearer: string | null;
}

/** How often a key's `last_used_at` is written at most: not on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

const INVALID = 'the credential is invalid, expired or revoked';

/**
 * The caller behind the credentials: null when none were presented; UnauthenticatedError when one was presented
 * and is not valid (a wrong key, a revoked or expired key, a tampered or expired token, a deleted or disabled
 * user). Every failure says the same, so an answer never tells which part was wrong.
 */
export async function authenticate(deps: AuthDeps, credentials: Credentials): Promise<Principal | null> {
  const presented = credentials.apiKey ?? credentials.bearer;
  if (!presented) return null;
  if (deps.config.masterKey && sameSecret(presented, deps.config.masterKey)) {
    return { kind: 'master', id: 'master', tenantId: null, role: 'admin', userId: null, workspaceId: null };
  }
  const principal =
    credentials.apiKey === null && looksLikeJwt(presented) ? await fromToken(deps, presented) : await fromKey(deps, presented);
  if (!principal) throw new UnauthenticatedError(INVALID);
  return principal;
}

async function fromToken(deps: AuthDeps, token: string): Promise<Principal | null> {
  const claims = await deps.tokens.verify(token);
  if (!claims) return null;
  const user = await activeUser(deps, claims.userId);
  if (!user || user.tenant_id !== claims.tenantId) return null;
  // The stored role counts, not the token's: a demotion applies at once.
  return { kind: 'user', id: `user:${user.id}`, tenantId: user.tenant_id, role: user.role, userId: user.id, workspaceId: null };
}

async function fromKey(deps: AuthDeps, key: string): Promise<Principal | null> {
  const record = await deps.accounts.apiKeys.findOne({ key_hash: sha256(key) });
  const now = new Date();
  if (!record || record.revoked_at !== null || (record.expires_at !== null && record.expires_at <= now.toISOString())) return null;
  let role = record.role;
  if (record.user_id !== null) {
    const owner = await activeUser(deps, record.user_id);
    if (!owner) return null;
    // A key never grants more than its owner holds now.
    if (!roleCovers(owner.role, role)) role = owner.role;
  }
  touch(deps, record, now);
  return {
    kind: 'api_key',
    id: `key:${record.id}`,
    tenantId: record.tenant_id,
    role,
    userId: record.user_id,
    workspaceId: record.workspace_id,
  };
}

async function activeUser(deps: AuthDeps, id: string): Promise<UserRecord | null> {
  const user = await deps.accounts.users.get(id);
  return user && !user.disabled ? user : null;
}

function touch(deps: AuthDeps, record: ApiKeyRecord, now: Date): void {
  const last = record.last_used_at ? Date.parse(record.last_used_at) : 0;
  if (now.getTime() - last < LAST_USED_RESOLUTION_MS) return;
  deps.accounts.apiKeys
    .update(record.id, { last_used_at: now.toISOString() })
    .catch((err: unknown) => deps.log.warn({ err: (err as Error).message, key_id: record.id }, 'could not record API key use'));
}
