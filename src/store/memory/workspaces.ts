import type { Scope } from '../../domain/types';

/** Key of a workspace: tenants never share a workspace even when workspace ids coincide. */
export function workspaceKey(scope: Scope): string {
  return `${scope.tenantId ?? ''}/${scope.workspaceId}`;
}

function copyScope(scope: Scope): Scope {
  return scope.tenantId === undefined ? { workspaceId: scope.workspaceId } : { workspaceId: scope.workspaceId, tenantId: scope.tenantId };
}

/**
 * Per-workspace state of one store. Reads use `find` so that looking at an unknown workspace
 * never allocates; writes use `obtain`.
 */
export class WorkspaceStates<T> {
  private readonly states = new Map<string, { scope: Scope; state: T }>();

  constructor(private readonly create: () => T) {}

  find(scope: Scope): T | undefined {
    return this.states.get(workspaceKey(scope))?.state;
  }

  obtain(scope: Scope): T {
    const key = workspaceKey(scope);
    let entry = this.states.get(key);
    if (!entry) {
      entry = { scope: copyScope(scope), state: this.create() };
      this.states.set(key, entry);
    }
    return entry.state;
  }

  drop(scope: Scope): void {
    this.states.delete(workspaceKey(scope));
  }

  *entries(): IterableIterator<[Scope, T]> {
    for (const { scope, state } of this.states.values()) yield [copyScope(scope), state];
  }

  clear(): void {
    this.states.clear();
  }
}
