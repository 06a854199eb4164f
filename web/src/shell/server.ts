import { getJson, getOptional, send } from '../api/client';
import type { AuthSwitches, AuthUser, TokenPair, Workspace } from '../api/pending';
import { clearSession, currentSession, selectWorkspace, storeTokens, storedWorkspace } from '../api/session';
import type { Health } from '../api/types';

/** What the console learns from the server before showing a page. */
export interface ServerInfo {
  health: Health & { auth?: AuthSwitches };
  /** Authentication is on and not in development mode: pages need a signed-in user. */
  authRequired: boolean;
}

export async function loadServerInfo(): Promise<ServerInfo> {
  const res = await fetch('/health');
  const health = (await res.json()) as ServerInfo['health'];
  const auth = health.auth;
  return { health, authRequired: Boolean(auth?.enabled && !auth.dev_mode) };
}

/** How often the header's health dot asks again. */
export const HEALTH_POLL_MS = 10_000;

/** The service's health now, or null when it does not answer (or answers something that is not its health). */
export async function readHealth(): Promise<ServerInfo['health'] | null> {
  try {
    const res = await fetch('/health', { cache: 'no-store' });
    if (!res.ok && res.status !== 503) return null;
    return (await res.json()) as ServerInfo['health'];
  } catch {
    return null;
  }
}

/** The signed-in user, or null when the server refuses (or offers no login and needs none). */
export async function whoAmI(): Promise<AuthUser | null> {
  try {
    return await getJson<AuthUser>('/api/v1/auth/me');
  } catch {
    return null;
  }
}

export async function login(username: string, password: string): Promise<AuthUser> {
  const res = await send('/api/v1/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  return storeTokens((await res.json()) as TokenPair).user;
}

export async function logout(): Promise<void> {
  if (currentSession()) {
    // The refresh cookie's token is revoked on the server and the cookie cleared; no access token is sent, so a
    // missing cookie never ends the user's other sessions. The session is dropped here even if that call fails.
    await fetch('/api/v1/auth/logout', { method: 'POST', credentials: 'same-origin' }).catch(() => undefined);
  }
  clearSession();
}

/**
 * The caller's workspaces, or null when this server has no workspace list (everything then lives in its default
 * workspace and no X-Workspace-ID is sent). Selects the remembered workspace, else `default`, else the first.
 */
export async function loadWorkspaces(): Promise<Workspace[] | null> {
  const body = await getOptional<{ workspaces?: Workspace[]; items?: Workspace[] } | Workspace[]>('/api/v1/workspaces');
  if (body === null) {
    selectWorkspace(null);
    return null;
  }
  const list = Array.isArray(body) ? body : (body.workspaces ?? body.items ?? []);
  const remembered = storedWorkspace();
  const chosen = list.find((w) => w.id === remembered) ?? list.find((w) => w.name === 'default') ?? list[0];
  selectWorkspace(chosen?.id ?? null);
  return list;
}
