import { type z } from 'zod';
import type { Api } from '../../http/api';
import { principalOf } from '../../http/context';
import type { Runtime } from '../../services/runtime';
import { ForbiddenError, UnauthenticatedError } from '../../domain/errors';
import { clearRefreshCookie, presentedRefreshToken, setRefreshCookie } from './refresh-cookie';
import { loginSchema, logoutAllSchema, meSchema, presentMe, refreshSchema, sessionSchema } from './schema';

/** Login, token refresh, logout and the current caller (docs/api.md §5.5). */
export function authRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'post',
      path: '/auth/login',
      tag: 'auth',
      access: 'credentials',
      summary: 'Exchange a user name and password for an access token and a refresh token',
      description:
        'Failed attempts are throttled per user name at an address, per user name and per address (429 with Retry-After). ' +
        'The refresh token is also set as an httpOnly, SameSite=Strict cookie scoped to /api/v1/auth, for browsers.',
      body: loginSchema,
      responses: { 200: { description: 'A new session', schema: sessionSchema } },
    },
    async (ctx, { body }) => {
      const session = await rt.auth.login(body.username, body.password, ctx.ip);
      setRefreshCookie(ctx, session.refresh_token, session.refresh_expires_in);
      ctx.body = session;
    },
  );

  api.route(
    {
      method: 'post',
      path: '/auth/refresh',
      tag: 'auth',
      access: 'credentials',
      summary: 'Exchange a refresh token for a new session (the token used is revoked)',
      description:
        'The token of the body, or without a body the refresh cookie set by login and refresh. A revoked token presented ' +
        'again revokes every token rotated from the same sign-in.',
      body: refreshSchema,
      bodyOptional: true,
      responses: { 200: { description: 'A new session', schema: sessionSchema } },
    },
    async (ctx, { body }) => {
      const token = presentedRefreshToken(ctx, body);
      if (!token) throw new UnauthenticatedError('send a refresh token in the body (or sign in again)');
      try {
        const session = await rt.auth.refresh(token);
        setRefreshCookie(ctx, session.refresh_token, session.refresh_expires_in);
        ctx.body = session;
      } catch (err) {
        if (err instanceof UnauthenticatedError) clearRefreshCookie(ctx);
        throw err;
      }
    },
  );

  api.route(
    {
      method: 'post',
      path: '/auth/logout',
      tag: 'auth',
      access: 'credentials',
      summary: 'Revoke a refresh token',
      description:
        "The token of the body, or without a body the refresh cookie. Without either, a request carrying a user's access " +
        'token revokes every refresh token of that user and answers how many (the access token itself lives until it expires).',
      body: refreshSchema,
      bodyOptional: true,
      responses: {
        200: { description: 'Without a body: every session of the user ended', schema: logoutAllSchema },
        204: { description: 'Revoked (or already unknown)' },
      },
    },
    async (ctx, { body }) => {
      const token = presentedRefreshToken(ctx, body);
      if (token) {
        await rt.auth.logout(token);
        clearRefreshCookie(ctx);
        ctx.status = 204;
        return;
      }
      const p = ctx.state.principal;
      if (ctx.state.credentialLookupFailure) throw ctx.state.credentialLookupFailure;
      if (ctx.state.credentialError) throw new UnauthenticatedError(ctx.state.credentialError.message);
      if (!p) throw new UnauthenticatedError("send a refresh token in the body, or a user's access token to end all their sessions");
      if (p.kind !== 'user' || !p.userId) {
        throw new ForbiddenError("without a refresh token in the body, only a user's access token ends sessions (all of that user's)");
      }
      ctx.body = { user_id: p.userId, revoked_sessions: await rt.auth.logoutEverywhere(p.userId) } satisfies z.input<
        typeof logoutAllSchema
      >;
    },
  );

  api.route(
    {
      method: 'get',
      path: '/auth/me',
      tag: 'auth',
      workspace: false,
      summary: 'Who the credential belongs to',
      responses: { 200: { description: 'The caller', schema: meSchema } },
    },
    async (ctx) => {
      const p = principalOf(ctx);
      const user = p.kind === 'user' || (p.kind === 'api_key' && p.userId) ? await rt.auth.users.get(p, p.userId!) : null;
      ctx.body = presentMe(p, rt.tenancy.isOperator(p), user) satisfies z.input<typeof meSchema>;
    },
  );
}
