import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { AuthConfig } from '../../config/types';
import type { Role } from '../../domain/accounts';

export interface AccessClaims {
  userId: string;
  tenantId: string;
  role: Role;
}

/**
 * Access tokens: HS256 JWTs with issuer, audience, expiry and a unique id, signed with the configured secret, else
 * with the key shared through the store (persistent mode, `signing-key.ts`), else with a random one per process. Verification accepts HS256 only: `alg: none` and any
 * other algorithm are refused by jose before the signature is looked at.
 */
export class AccessTokens {
  private readonly key: Uint8Array;

  constructor(
    private readonly config: AuthConfig,
    sharedKey?: string,
  ) {
    const secret = config.jwtSecret ?? sharedKey;
    this.key = secret ? new TextEncoder().encode(secret) : new Uint8Array(randomBytes(32));
  }

  get ttlSeconds(): number {
    return this.config.accessTokenTtlS;
  }

  sign(claims: AccessClaims): Promise<string> {
    return new SignJWT({ tid: claims.tenantId, role: claims.role })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.userId)
      .setIssuer(this.config.jwtIssuer)
      .setAudience(this.config.jwtAudience)
      .setIssuedAt()
      .setJti(randomUUID())
      .setExpirationTime(`${this.config.accessTokenTtlS}s`)
      .sign(this.key);
  }

  /** The claims of a valid token; null for anything else (malformed, tampered, expired, wrong issuer/audience/alg). */
  async verify(token: string): Promise<AccessClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: this.config.jwtIssuer,
        audience: this.config.jwtAudience,
        requiredClaims: ['sub', 'exp', 'iat', 'jti'],
      });
      if (typeof payload.sub !== 'string' || typeof payload.tid !== 'string' || typeof payload.role !== 'string') return null;
      return { userId: payload.sub, tenantId: payload.tid, role: payload.role as Role };
    } catch {
      return null;
    }
  }
}

/** A JWT is three base64url parts; API keys never look like one. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}
