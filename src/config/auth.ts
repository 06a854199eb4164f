import { z } from 'zod';
import type { AuthConfig } from './types';

/** docs/api.md §5.4: authentication switches and credentials. Secrets are kept here only, never logged. */
export const authEnvSchema = {
  SERVICE_AUTH_ENABLED: z.enum(['true', 'false', '1', '0'], { message: 'must be true or false' }).optional(),
  SERVICE_DEV_MODE: z.enum(['true', 'false', '1', '0'], { message: 'must be true or false' }).optional(),
  SERVICE_MASTER_API_KEY: z.string().trim().min(16, 'must be at least 16 characters').optional(),
  SERVICE_JWT_SECRET: z.string().trim().min(32, 'must be at least 32 characters').optional(),
  SERVICE_JWT_ISSUER: z.string().trim().min(1).optional(),
  SERVICE_JWT_AUDIENCE: z.string().trim().min(1).optional(),
  SERVICE_ACCESS_TOKEN_TTL_S: z
    .string()
    .regex(/^[0-9]+$/, 'must be a whole number of seconds')
    .optional(),
  SERVICE_REFRESH_TOKEN_TTL_S: z
    .string()
    .regex(/^[0-9]+$/, 'must be a whole number of seconds')
    .optional(),
  SERVICE_BOOTSTRAP_ADMIN_USERNAME: z.string().trim().min(1).optional(),
  SERVICE_BOOTSTRAP_ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
  SERVICE_BOOTSTRAP_ADMIN_EMAIL: z.string().trim().email('must be an email address').optional(),
};

type AuthVars = { [K in keyof typeof authEnvSchema]?: z.output<(typeof authEnvSchema)[K]> };

const flag = (v: string | undefined, fallback: boolean) => (v === undefined ? fallback : v === 'true' || v === '1');

export function resolveAuth(vars: AuthVars, problems: string[]): AuthConfig {
  const username = vars.SERVICE_BOOTSTRAP_ADMIN_USERNAME;
  const password = vars.SERVICE_BOOTSTRAP_ADMIN_PASSWORD;
  if ((username === undefined) !== (password === undefined)) {
    problems.push('SERVICE_BOOTSTRAP_ADMIN_USERNAME and SERVICE_BOOTSTRAP_ADMIN_PASSWORD: set both or neither');
  }
  const accessTtl = Number(vars.SERVICE_ACCESS_TOKEN_TTL_S ?? 900);
  const refreshTtl = Number(vars.SERVICE_REFRESH_TOKEN_TTL_S ?? 14 * 86_400);
  if (accessTtl < 10 || accessTtl > 86_400) problems.push(`SERVICE_ACCESS_TOKEN_TTL_S: must be between 10 and 86400, got ${accessTtl}`);
  if (refreshTtl < accessTtl) problems.push(`SERVICE_REFRESH_TOKEN_TTL_S: must be at least SERVICE_ACCESS_TOKEN_TTL_S (${accessTtl})`);
  return {
    enabled: flag(vars.SERVICE_AUTH_ENABLED, true),
    devMode: flag(vars.SERVICE_DEV_MODE, false),
    masterKey: vars.SERVICE_MASTER_API_KEY ?? null,
    jwtSecret: vars.SERVICE_JWT_SECRET ?? null,
    jwtIssuer: vars.SERVICE_JWT_ISSUER ?? 'kgrag',
    jwtAudience: vars.SERVICE_JWT_AUDIENCE ?? 'kgrag-api',
    accessTokenTtlS: accessTtl,
    refreshTokenTtlS: refreshTtl,
    bootstrapAdmin:
      username && password ? { username, password, email: vars.SERVICE_BOOTSTRAP_ADMIN_EMAIL ?? `${username}@localhost` } : null,
    loginAttempts: { perUserAtAddress: 5, perUser: 100, perAddress: 20, windowMs: 15 * 60_000 },
  };
}
