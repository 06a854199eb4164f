import type { AppContext } from '../../http/context';

/**
 * The web console's refresh token: an httpOnly cookie (no script reads it), SameSite=Strict (no other site's page
 * sends it), Secure on HTTPS, and sent only to the credential exchanges under /api/v1/auth. API clients keep using
 * the `refresh_token` of the JSON answers and bodies; the cookie is the fallback when a body names none.
 */
export const REFRESH_COOKIE = 'kgrag_refresh';
const COOKIE_PATH = '/api/v1/auth';

export function setRefreshCookie(ctx: AppContext, token: string, ttlS: number): void {
  ctx.cookies.set(REFRESH_COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.secure,
    path: COOKIE_PATH,
    maxAge: ttlS * 1000,
    overwrite: true,
  });
}

export function clearRefreshCookie(ctx: AppContext): void {
  if (!ctx.cookies.get(REFRESH_COOKIE)) return;
  ctx.cookies.set(REFRESH_COOKIE, null, { httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: COOKIE_PATH, overwrite: true });
}

/** The refresh token a request presents: its body's, else the cookie's. */
export function presentedRefreshToken(ctx: AppContext, body: { refresh_token: string } | undefined): string | null {
  return body?.refresh_token ?? ctx.cookies.get(REFRESH_COOKIE) ?? null;
}
