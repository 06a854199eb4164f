import type { ApiKeyRecord, UserRecord } from '../../domain/accounts';

/** Users and keys as the API shows them: never a hash. */

export type PublicUser = Omit<UserRecord, 'password_hash'>;
export type PublicApiKey = Omit<ApiKeyRecord, 'key_hash'>;

export function publicUser(user: UserRecord): PublicUser {
  const { password_hash: _hash, ...rest } = user;
  return rest;
}

export function publicApiKey(key: ApiKeyRecord): PublicApiKey {
  const { key_hash: _hash, ...rest } = key;
  return rest;
}
