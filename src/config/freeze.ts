import type { DeepReadonly } from './types';

/** Freezes `value` and everything it holds: what the type `DeepReadonly` promises holds at run time too. */
export function deepFreeze<T>(value: T): DeepReadonly<T> {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const held of Object.values(value)) deepFreeze(held);
  }
  return value as DeepReadonly<T>;
}
