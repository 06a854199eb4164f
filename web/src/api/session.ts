import type { AuthUser, TokenPair } from './pending';

/**
 * Who the console is signed in as and which workspace it shows. The short-lived access token lives in this
 * browser's local storage (never in a URL) and is sent as `Authorization: Bearer`; the refresh token never reaches
 * a script: the server keeps it in an httpOnly cookie that the browser sends only to `/api/v1/auth`.
 */
export interface Session {
  accessToken: string;
  /** Epoch ms after which the access token is refreshed before use. */
  expiresAt: number;
  user: AuthUser;
}

const SESSION_KEY = 'kgrag.session';
const WORKSPACE_KEY = 'kgrag.workspace';

type Listener = () => void;
const listeners = new Set<Listener>();

let session: Session | null = read();
/** The X-Workspace-ID to send; null while the server has no workspace list (it then uses its default). */
let workspaceId: string | null = null;

function read(): Session | null {
  try {
    const raw = localStorage.getItem(SESSION_KEY);
    if (!raw) return null;
    // A session stored by an older console kept its refresh token here: it is dropped.
    const { refreshToken, ...stored } = JSON.parse(raw) as Session & { refreshToken?: string };
    if (refreshToken !== undefined) localStorage.setItem(SESSION_KEY, JSON.stringify(stored));
    return stored;
  } catch {
    return null;
  }
}

function notify(): void {
  for (const listener of listeners) listener();
}

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function currentSession(): Session | null {
  return session;
}

export function storeTokens(pair: TokenPair): Session {
  session = {
    accessToken: pair.access_token,
    // Refresh a little early so that a request never leaves with a token about to lapse.
    expiresAt: Date.now() + Math.max(0, pair.expires_in - 30) * 1000,
    user: pair.user,
  };
  localStorage.setItem(SESSION_KEY, JSON.stringify(session));
  notify();
  return session;
}

export function clearSession(): void {
  session = null;
  localStorage.removeItem(SESSION_KEY);
  notify();
}

export function currentWorkspace(): string | null {
  return workspaceId;
}

export function storedWorkspace(): string | null {
  return localStorage.getItem(WORKSPACE_KEY);
}

export function selectWorkspace(id: string | null): void {
  workspaceId = id;
  if (id) localStorage.setItem(WORKSPACE_KEY, id);
  notify();
}
