import type { Principal } from '../../src/domain/accounts';
import type { Scope } from '../../src/domain/types';
import type { Runtime } from '../../src/runtime';

/** The master key of the services a bench boots in-process (authentication stays on, as in production). */
export const BENCH_MASTER_KEY = 'bench-master-key-0123456789';

const OPERATOR: Principal = { kind: 'master', id: 'master', tenantId: null, role: 'admin', userId: null, workspaceId: null };

/** A new workspace of the default tenant named `name` (requests name workspaces by their id). */
export async function benchWorkspace(rt: Runtime, name: string): Promise<Scope> {
  const workspace = await rt.tenancy.createWorkspace(OPERATOR, null, { name });
  return { workspaceId: workspace.id };
}
