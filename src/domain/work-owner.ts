import { AsyncLocalStorage } from 'node:async_hooks';

const owner = new AsyncLocalStorage<string>();

/** Runs `work` (and everything it starts) on behalf of `tenant` ('' for none): the stores share their connections by it. */
export function onBehalfOf<T>(tenant: string, work: () => T): T {
  return owner.run(tenant, work);
}

/** The tenant the current work is done for, or undefined outside a request. */
export function currentOwner(): string | undefined {
  return owner.getStore();
}
