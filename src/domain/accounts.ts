/**
 * Tenants, workspaces, users and credentials (docs/api.md §4.6, §4.7, §5). Every record is flat: strings,
 * numbers, booleans and nulls, so that both stores keep it as it is.
 */

export const ROLES = ['viewer', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** True when `held` grants at least what `needed` does (admin > editor > viewer). */
export function roleCovers(held: Role, needed: Role): boolean {
  return ROLES.indexOf(held) >= ROLES.indexOf(needed);
}

export interface TenantRecord {
  id: string;
  name: string;
  slug: string;
  plan: string;
  created_at: string;
  updated_at: string;
}

export interface WorkspaceRecord {
  id: string;
  tenant_id: string;
  name: string;
  slug: string;
  description: string;
  /** The tenant's workspace used when a request names none; one per tenant, never deleted while the tenant lives. */
  is_default: boolean;
  llm_provider: string;
  llm_model: string;
  embedding_provider: string;
  embedding_model: string;
  embedding_dimension: number;
  /** A rebuild task in progress (rebuild-embeddings, rebuild-knowledge-graph), or null. */
  rebuild_task_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface UserRecord {
  id: string;
  tenant_id: string;
  username: string;
  email: string;
  role: Role;
  /** Argon2id PHC string; never leaves the service. */
  password_hash: string;
  disabled: boolean;
  created_at: string;
  updated_at: string;
}

export interface ApiKeyRecord {
  id: string;
  tenant_id: string;
  /** The user who created the key; null for keys made with the master key. */
  user_id: string | null;
  name: string;
  /** The first characters of the key, shown in listings so that a holder can tell keys apart. */
  prefix: string;
  /** SHA-256 of the whole key; the key itself is shown once, at creation. */
  key_hash: string;
  role: Role;
  /** A key bound to one workspace reaches that workspace only (clients that cannot send X-Workspace-ID). */
  workspace_id: string | null;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface RefreshTokenRecord {
  id: string;
  user_id: string;
  /** SHA-256 of the token. */
  token_hash: string;
  /**
   * The sign-in the token descends from by rotation: the id of its first token. A revoked token presented again
   * revokes every token of its family (a token stored before families existed is a family of its own).
   */
  family_id?: string;
  created_at: string;
  updated_at: string;
  expires_at: string;
  revoked_at: string | null;
}

/** Workspace statistics at one moment (docs/api.md §4.6 metrics-history); `stats` is the §4.9 body as JSON. */
export interface MetricsSnapshotRecord {
  id: string;
  workspace_id: string;
  stats_json: string;
  created_at: string;
  updated_at: string;
}

/** The service's runtime settings: one record (id `service`), the values as JSON (docs/api.md §4.11). */
export interface SettingsRecord {
  id: string;
  values_json: string;
  created_at: string;
  updated_at: string;
}

/** A named view of the graph explorer, kept per user and workspace; `view_json` holds the view's settings. */
export interface SavedViewRecord {
  id: string;
  workspace_id: string;
  owner_id: string;
  name: string;
  view_json: string;
  created_at: string;
  updated_at: string;
}

/**
 * Who is calling. `tenantId` null means every tenant (the master key, or an open API in dev mode or with
 * authentication off). `id` names the caller for rate limits.
 */
export interface Principal {
  kind: 'master' | 'user' | 'api_key' | 'open';
  id: string;
  tenantId: string | null;
  role: Role;
  userId: string | null;
  /** Set for keys bound to one workspace. */
  workspaceId: string | null;
}
