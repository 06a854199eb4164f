import type { ParameterizedContext } from 'koa';
import type { Principal, TenantRecord, WorkspaceRecord } from '../domain/accounts';
import type { Scope } from '../domain/types';

/** The rate limit a request counts against (docs/api.md §8.2). */
export type RateCategory = 'upload' | 'query' | 'graph';

export interface AppState {
  requestId: string;
  /** The caller, once credentials were checked (docs/api.md §5); absent when none were presented. */
  principal?: Principal;
  /** Why presented credentials were refused; a protected route answers 401 with it. */
  credentialError?: Error;
  /**
   * Why presented credentials could not be checked (the credential store unavailable: a 503 with Retry-After);
   * a protected route answers with it, never with 401.
   */
  credentialLookupFailure?: Error;
  /** Set on routes that act in a workspace (docs/api.md §5.1). */
  scope: Scope;
  tenant?: TenantRecord;
  workspace?: WorkspaceRecord;
  /** Counts one more operation of `category` for this request's caller (429 past the limit); set by the rate limiter. */
  countOperation?: (category: RateCategory) => Promise<void>;
  /** The app's shutdown drain (./drain.ts): event streams register with it, /ready reads it. */
  drain?: {
    readonly draining: boolean;
    /** Registers an open stream; returns how to forget it. */
    track(stream: { shutdown(): void }): () => void;
  };
}

export type AppContext = ParameterizedContext<AppState>;

/** The caller of a protected route: the guard has set it before the handler runs. */
export function principalOf(ctx: AppContext): Principal {
  if (!ctx.state.principal) throw new Error('principalOf called on a route without a principal');
  return ctx.state.principal;
}
