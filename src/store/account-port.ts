import type { Page } from '../domain/types';
import type {
  ApiKeyRecord,
  MetricsSnapshotRecord,
  SettingsRecord,
  RefreshTokenRecord,
  SavedViewRecord,
  TenantRecord,
  UserRecord,
  WorkspaceRecord,
} from '../domain/accounts';

/** Account store ports: tenants, workspaces, users and credentials, kept outside any workspace. */

/** An account record: flat fields only (strings, numbers, booleans, nulls; see src/domain/accounts.ts). */
export interface FlatRecord {
  id: string;
  created_at: string;
  updated_at: string;
}

/** Whether a record has every defined value of `filter` (the rule of `findOne`, `list` and `updateIf`). */
export function matchesRecord<T extends FlatRecord>(record: T, filter: Partial<T>): boolean {
  const fields = record as unknown as Record<string, unknown>;
  return Object.entries(filter).every(([key, value]) => value === undefined || fields[key] === value);
}

/**
 * One kind of account record (tenants, workspaces, users, API keys, refresh tokens, metrics snapshots), kept
 * outside any workspace. Unique fields are declared per collection; a write that would duplicate one throws
 * ConflictError and writes nothing. Lists are ordered by `created_at`, then `id`.
 */
export interface RecordCollection<T extends FlatRecord> {
  insert(record: T): Promise<void>;
  get(id: string): Promise<T | null>;
  /** The first record whose fields equal every value of the filter. */
  findOne(filter: Partial<T>): Promise<T | null>;
  list(filter: Partial<T>, page: { limit: number; offset: number }): Promise<Page<T>>;
  count(filter: Partial<T>): Promise<number>;
  /** The updated record, or null when there is none with this id. */
  update(id: string, patch: Partial<T>): Promise<T | null>;
  /**
   * Compare-and-set: applies `patch` only while the record still has every value of `expected`; the updated record,
   * or null when there is none with this id or it no longer matches. Of concurrent calls expecting the same values,
   * one wins.
   */
  updateIf(id: string, expected: Partial<T>, patch: Partial<T>): Promise<T | null>;
  delete(id: string): Promise<boolean>;
  deleteWhere(filter: Partial<T>): Promise<number>;
}

export interface AccountStores {
  tenants: RecordCollection<TenantRecord>;
  workspaces: RecordCollection<WorkspaceRecord>;
  users: RecordCollection<UserRecord>;
  apiKeys: RecordCollection<ApiKeyRecord>;
  refreshTokens: RecordCollection<RefreshTokenRecord>;
  metricsSnapshots: RecordCollection<MetricsSnapshotRecord>;
  settings: RecordCollection<SettingsRecord>;
  savedViews: RecordCollection<SavedViewRecord>;
}

/** Builds the account collections with one constructor (each store's). */
export function buildAccountStores(make: (label: string, unique: string[][]) => RecordCollection<FlatRecord>): AccountStores {
  const one = <K extends keyof AccountStores>(name: K) =>
    make(ACCOUNT_COLLECTIONS[name].label, ACCOUNT_COLLECTIONS[name].unique) as unknown as AccountStores[K];
  return {
    tenants: one('tenants'),
    workspaces: one('workspaces'),
    users: one('users'),
    apiKeys: one('apiKeys'),
    refreshTokens: one('refreshTokens'),
    metricsSnapshots: one('metricsSnapshots'),
    settings: one('settings'),
    savedViews: one('savedViews'),
  };
}

/** Which fields of each collection are unique, alone or together: the same rule in both stores. */
export const ACCOUNT_COLLECTIONS: Record<keyof AccountStores, { label: string; unique: string[][] }> = {
  tenants: { label: 'Tenant', unique: [['slug']] },
  workspaces: { label: 'Workspace', unique: [['tenant_id', 'slug']] },
  users: { label: 'User', unique: [['username']] },
  apiKeys: { label: 'ApiKey', unique: [['key_hash']] },
  refreshTokens: { label: 'RefreshToken', unique: [['token_hash']] },
  metricsSnapshots: { label: 'MetricsSnapshot', unique: [] },
  settings: { label: 'Settings', unique: [] },
  savedViews: { label: 'SavedView', unique: [['workspace_id', 'owner_id', 'name']] },
};
