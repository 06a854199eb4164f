import type { Principal } from '../../src/domain/accounts';
import type { Scope } from '../../src/domain/types';
import type { Runtime } from '../../src/runtime';

const OPERATOR: Principal = { kind: 'master', id: 'master', tenantId: null, role: 'admin', userId: null, workspaceId: null };

/** A new workspace of the default tenant named `name` (requests name workspaces by their id). */
export async function benchWorkspace(rt: Runtime, name: string): Promise<Scope> {
  const workspace = await rt.tenancy.createWorkspace(OPERATOR, null, { name });
  return { workspaceId: workspace.id };
}
