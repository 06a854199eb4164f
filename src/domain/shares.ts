/** Caps of one class of work: at once in all, per tenant and per workspace (0: no cap). */
export interface ShareCaps {
  total: number;
  perTenant: number;
  perWorkspace: number;
}

/** Whose share is full: the caller's tenant or workspace (429), or the instance's (503). */
export type FullShare = 'tenant' | 'workspace' | 'total';

export type Admitted = { release: () => void } | { refused: FullShare };

interface Waiter {
  tenant: string;
  workspace: string;
  grant: () => void;
}

/**
 * Fair shares of one class of work. At most `caps.total` run at once, of them at most `caps.perTenant` for one
 * tenant and `caps.perWorkspace` for one workspace. A request over a share waits in arrival order for at most
 * `waitMs` (0: not at all); a freed slot goes to the first waiter whose shares have room, so a tenant over its share
 * never holds up another's requests. A wait that runs out is refused with the share that was full.
 */
export class Shares {
  private total = 0;
  private readonly tenants = new Map<string, number>();
  private readonly workspaces = new Map<string, number>();
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly caps: ShareCaps,
    readonly waitMs: number,
  ) {}

  /** Running now: in all, or of one tenant. */
  running(tenant?: string): number {
    return tenant === undefined ? this.total : (this.tenants.get(tenant) ?? 0);
  }

  take(tenant: string, workspace: string, signal?: AbortSignal): Promise<Admitted> {
    const key = workspaceKey(tenant, workspace);
    if (this.waiting.length === 0 || this.waitMs <= 0) {
      const full = this.full(tenant, key);
      if (!full) return Promise.resolve({ release: this.enter(tenant, key) });
      if (this.waitMs <= 0) return Promise.resolve({ refused: full });
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        tenant,
        workspace: key,
        grant: () => {
          done();
          resolve({ release: this.enter(tenant, key) });
        },
      };
      const giveUp = () => {
        done();
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve({ refused: this.full(tenant, key) ?? 'total' });
      };
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', giveUp);
      };
      const timer = setTimeout(giveUp, this.waitMs);
      signal?.addEventListener('abort', giveUp, { once: true });
      this.waiting.push(waiter);
      this.admitWaiting();
    });
  }

  private full(tenant: string, workspace: string): FullShare | null {
    const { total, perTenant, perWorkspace } = this.caps;
    if (perWorkspace > 0 && (this.workspaces.get(workspace) ?? 0) >= perWorkspace) return 'workspace';
    if (perTenant > 0 && (this.tenants.get(tenant) ?? 0) >= perTenant) return 'tenant';
    if (total > 0 && this.total >= total) return 'total';
    return null;
  }

  private enter(tenant: string, workspace: string): () => void {
    this.total += 1;
    bump(this.tenants, tenant, 1);
    bump(this.workspaces, workspace, 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.total -= 1;
      bump(this.tenants, tenant, -1);
      bump(this.workspaces, workspace, -1);
      this.admitWaiting();
    };
  }

  /** Grants freed slots to waiters in arrival order, skipping those whose own share is still full. */
  private admitWaiting(): void {
    for (let i = 0; i < this.waiting.length;) {
      const waiter = this.waiting[i];
      const full = this.full(waiter.tenant, waiter.workspace);
      if (full === 'total') return;
      if (full) {
        i += 1;
        continue;
      }
      this.waiting.splice(i, 1);
      waiter.grant();
    }
  }
}

function workspaceKey(tenant: string, workspace: string): string {
  return `${tenant}\u0000${workspace}`;
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n <= 0) counts.delete(key);
  else counts.set(key, n);
}
