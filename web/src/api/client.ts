import { clearSession, currentSession, currentWorkspace, storeTokens } from './session';
import type { TokenPair } from './pending';
import type { ApiPath } from './types';

/** An API failure with the problem detail's words, ready to show. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly fieldErrors: Array<{ field: string; message: string }> = [],
  ) {
    // The service's detail already lists the field errors ("query: must not be empty; mode: ...").
    super(detail || fieldErrors.map((e) => `${e.field}: ${e.message}`).join('; '));
  }
}

/** A message for any error: the problem's detail for API errors, a plain sentence for network failures. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError && err.status === 404) return `${err.title} (404): ${withoutInternalIds(err.message)}`;
  if (err instanceof ApiError) return `${err.title} (${err.status}): ${err.message}`;
  if (err instanceof DOMException && err.name === 'AbortError') return 'Cancelled.';
  if (err instanceof TypeError) return `The service could not be reached (${err.message}).`;
  return err instanceof Error ? err.message : String(err);
}

/**
 * A "not found" detail without the workspace it was looked up in and without quoted UUIDs ("document '…' not found
 * in workspace '…'" -> "document not found"): the reader knows which workspace is open, and an id says nothing.
 */
function withoutInternalIds(detail: string): string {
  const text = detail
    .replace(/\s+in workspace '[^']*'/g, '')
    .replace(/\s*'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'/gi, '')
    .trim();
  return text || 'it does not exist in this workspace, or it was deleted.';
}

type Params = Record<string, string | number>;
type Query = Record<string, string | number | boolean | undefined | null>;

/** `/api/v1/documents/{id}` with `{id: 'x'}` -> `/api/v1/documents/x`, plus the query string. */
export function apiUrl(path: ApiPath | string, params: Params = {}, query: Query = {}): string {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params[name] ?? '')));
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const qs = search.toString();
  return qs ? `${filled}?${qs}` : filled;
}

async function problemOf(res: Response): Promise<ApiError> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as {
      title?: string;
      detail?: string;
      message?: string;
      errors?: Array<{ field: string; message: string }>;
    };
    return new ApiError(res.status, body.title ?? res.statusText, body.detail ?? body.message ?? text, body.errors ?? []);
  } catch {
    return new ApiError(res.status, res.statusText || 'Error', text.slice(0, 300) || `HTTP ${res.status}`);
  }
}

let refreshing: Promise<boolean> | null = null;

/**
 * Trades the refresh token (the httpOnly cookie the browser sends along) for a new access token once, however many
 * requests ask at the same time.
 */
export function refreshTokens(): Promise<boolean> {
  const session = currentSession();
  if (!session) return Promise.resolve(false);
  refreshing ??= fetch('/api/v1/auth/refresh', { method: 'POST', credentials: 'same-origin' })
    .then(async (res) => {
      if (!res.ok) return false;
      storeTokens((await res.json()) as TokenPair);
      return true;
    })
    .catch(() => false)
    .finally(() => (refreshing = null));
  return refreshing;
}

/** The headers every API call carries: the session's token and the selected workspace. */
export function credentialHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const session = currentSession();
  if (session) headers.Authorization = `Bearer ${session.accessToken}`;
  const workspace = currentWorkspace();
  if (workspace) headers['X-Workspace-ID'] = workspace;
  return headers;
}

/** Parses a failed XMLHttpRequest (used for uploads, which report their progress) like a failed fetch. */
export async function problemOfText(status: number, statusText: string, text: string): Promise<ApiError> {
  return problemOf(new Response(text, { status, statusText }));
}

function withCredentials(init: RequestInit): RequestInit {
  const headers = new Headers(init.headers);
  const session = currentSession();
  if (session && !headers.has('Authorization')) headers.set('Authorization', `Bearer ${session.accessToken}`);
  const workspace = currentWorkspace();
  if (workspace && !headers.has('X-Workspace-ID')) headers.set('X-Workspace-ID', workspace);
  return { ...init, headers };
}

/** Listeners told when the server refuses the session (401 after a refresh attempt): the console shows the login. */
const unauthorizedListeners = new Set<() => void>();
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/** fetch with the session's token and workspace; refreshes an expired token once; failures become ApiError. */
export async function send(url: string, init: RequestInit = {}): Promise<Response> {
  const session = currentSession();
  if (session && Date.now() > session.expiresAt) await refreshTokens();
  let res = await fetch(url, withCredentials(init));
  if (res.status === 401 && currentSession() && (await refreshTokens())) res = await fetch(url, withCredentials(init));
  if (res.status === 401) {
    const error = await problemOf(res);
    if (currentSession()) clearSession();
    unauthorizedListeners.forEach((listener) => listener());
    throw error;
  }
  if (!res.ok) throw await problemOf(res);
  return res;
}

export async function getJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  return (await (await send(url, { signal })).json()) as T;
}

export async function sendJson<T>(method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method };
  if (body !== undefined) init.headers = { 'Content-Type': 'application/json' };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await send(url, init);
  const text = await res.text();
  return (text ? JSON.parse(text) : null) as T;
}

/** GET that answers null for 404 and 501: the probe of an endpoint this server may not have. */
export async function getOptional<T>(url: string): Promise<T | null> {
  try {
    return await getJson<T>(url);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 501 || err.status === 405)) return null;
    throw err;
  }
}
