import { randomUUID } from 'node:crypto';
import type { RefreshTokenRecord, UserRecord } from '../../domain/accounts';
import { type RateLimitedError, UnauthenticatedError } from '../../domain/errors';
import type { AuthDeps } from './deps';
import { decoyHash, verifyPassword } from './passwords';
import { newRefreshToken, sha256 } from './secrets';
import { publicUser, type PublicUser } from './present';

export interface Session {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_expires_in: number;
  user: PublicUser;
}

const BAD_LOGIN = 'user name or password is wrong';
const BAD_REFRESH = 'the refresh token is invalid, expired or revoked';

/**
 * Password login: throttled per user name at an address, per user name and per address; a missing user costs the
 * same time as a wrong password. Failures and lock-outs are logged (user name and address, never the password).
 */
export async function login(deps: AuthDeps, username: string, password: string, address: string): Promise<Session> {
  try {
    await deps.throttle.check(username, address);
  } catch (err) {
    deps.log.warn({ username, address, lock: (err as RateLimitedError).details.lock }, 'login refused: locked out');
    throw err;
  }
  const user = await deps.accounts.users.findOne({ username });
  const ok = user ? await verifyPassword(user.password_hash, password) : (await verifyPassword(await decoyHash(), password), false);
  if (!user || !ok || user.disabled) {
    const locked = await deps.throttle.fail(username, address);
    const reason = !user ? 'unknown user' : !ok ? 'wrong password' : 'user disabled';
    deps.log.warn({ username, address, user_id: user?.id ?? null, reason }, 'login failed');
    for (const lock of locked) deps.log.warn({ username, address, lock }, 'login locked out');
    throw new UnauthenticatedError(BAD_LOGIN);
  }
  await deps.throttle.succeed(username, address);
  deps.log.info({ user_id: user.id, tenant_id: user.tenant_id }, 'login');
  return issue(deps, user);
}

/**
 * Exchanges a refresh token for a new session; the token used is revoked (rotation), so each works once. A revoked
 * token presented again means a copy of it is in other hands: every token of its family is revoked, the thief's
 * and the owner's alike (OAuth 2.0 Security BCP §4.14), and the owner signs in again.
 */
export async function refresh(deps: AuthDeps, token: string): Promise<Session> {
  const record = await deps.accounts.refreshTokens.findOne({ token_hash: sha256(token) });
  const now = new Date().toISOString();
  if (record && record.revoked_at !== null) return reused(deps, record, now);
  if (!record || record.expires_at <= now) throw new UnauthenticatedError(BAD_REFRESH);
  const user = await deps.accounts.users.get(record.user_id);
  if (!user || user.disabled) throw new UnauthenticatedError(BAD_REFRESH);
  // The successor is stored before the token is revoked by compare-and-set: of two exchanges at the same moment,
  // one rotates it and the other, a reuse, revokes the family with every successor already in it.
  const session = await issue(deps, user, familyOf(record));
  const rotated = await deps.accounts.refreshTokens.updateIf(record.id, { revoked_at: null }, { revoked_at: now, updated_at: now });
  if (!rotated) return reused(deps, record, now);
  return session;
}

/** A revoked token presented again: its whole family is revoked, and the request refused. */
async function reused(deps: AuthDeps, record: RefreshTokenRecord, now: string): Promise<never> {
  const revoked = await revokeOpen(deps, { family_id: familyOf(record) }, now);
  deps.log.warn(
    { user_id: record.user_id, family_id: familyOf(record), revoked },
    'revoked refresh token presented again: its family is revoked',
  );
  throw new UnauthenticatedError(BAD_REFRESH);
}

const familyOf = (record: RefreshTokenRecord): string => record.family_id ?? record.id;

/** Revokes the open refresh tokens that match `filter` (a family, a user); answers how many. */
async function revokeOpen(deps: AuthDeps, filter: Partial<RefreshTokenRecord>, now: string): Promise<number> {
  const open = await deps.accounts.refreshTokens.list({ ...filter, revoked_at: null }, { limit: 10_000, offset: 0 });
  for (const token of open.items) await deps.accounts.refreshTokens.update(token.id, { revoked_at: now, updated_at: now });
  return open.items.length;
}

/** Revokes a refresh token; unknown tokens are ignored (logging out twice is not an error). */
export async function logout(deps: AuthDeps, token: string): Promise<void> {
  const record = await deps.accounts.refreshTokens.findOne({ token_hash: sha256(token) });
  if (!record || record.revoked_at !== null) return;
  const now = new Date().toISOString();
  await deps.accounts.refreshTokens.update(record.id, { revoked_at: now, updated_at: now });
}

/** Revokes every refresh token of a user (password change, disabling, deletion, logout without a token); answers how many. */
export async function endSessions(deps: AuthDeps, userId: string): Promise<number> {
  return revokeOpen(deps, { user_id: userId }, new Date().toISOString());
}

/** A new session; its refresh token continues `familyId` (a rotation) or starts a family of its own (a sign-in). */
async function issue(deps: AuthDeps, user: UserRecord, familyId?: string): Promise<Session> {
  const refreshToken = newRefreshToken();
  const now = new Date();
  const id = randomUUID();
  await deps.accounts.refreshTokens.insert({
    id,
    user_id: user.id,
    family_id: familyId ?? id,
    token_hash: sha256(refreshToken),
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    expires_at: new Date(now.getTime() + deps.config.refreshTokenTtlS * 1000).toISOString(),
    revoked_at: null,
  });
  return {
    access_token: await deps.tokens.sign({ userId: user.id, tenantId: user.tenant_id, role: user.role }),
    refresh_token: refreshToken,
    token_type: 'Bearer',
    expires_in: deps.config.accessTokenTtlS,
    refresh_expires_in: deps.config.refreshTokenTtlS,
    user: publicUser(user),
  };
}
