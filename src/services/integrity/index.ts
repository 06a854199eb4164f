import { scopeKey } from '../../domain/ids';
import { type Scope, TASK_STATUSES } from '../../domain/types';
import type { Stores } from '../../store/ports';
import { checkIntegrity, type IntegrityReport } from './check';

export { checkIntegrity, ORPHAN_KINDS, type IntegrityReport, type OrphanGroup, type OrphanKind } from './check';

const PAGE = 500;

export interface IntegrityService {
  /** The integrity check of one workspace (./check.ts). */
  check(scope: Scope): Promise<IntegrityReport>;
  /** Every workspace: those created, the default one, and any a task names. */
  checkAll(): Promise<IntegrityReport[]>;
}

export function createIntegrityService(stores: Stores, defaultWorkspaceId: string): IntegrityService {
  return {
    check: (scope) => checkIntegrity(stores, scope),
    async checkAll() {
      const reports: IntegrityReport[] = [];
      for (const scope of await allScopes(stores, defaultWorkspaceId)) reports.push(await checkIntegrity(stores, scope));
      return reports;
    },
  };
}

async function allScopes(stores: Stores, defaultWorkspaceId: string): Promise<Scope[]> {
  const scopes = new Map<string, Scope>();
  const add = (scope: Scope) => scopes.set(scopeKey(scope), scope);
  add({ workspaceId: defaultWorkspaceId });
  for (let offset = 0; ; offset += PAGE) {
    const page = await stores.accounts.workspaces.list({}, { limit: PAGE, offset });
    for (const workspace of page.items) add({ workspaceId: workspace.id });
    if (page.items.length < PAGE) break;
  }
  for (const { scope } of await stores.tasks.listAll([...TASK_STATUSES])) add(scope);
  return [...scopes.values()];
}
