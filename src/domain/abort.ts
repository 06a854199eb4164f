/** Small helpers for AbortSignal-aware waiting, shared by the mock provider and the resilience wrapper. */

/** Error-like check that also works across realms (DOMException from Node's core inside jest's vm). */
function isErrorLike(value: unknown): value is Error {
  return (
    typeof value === 'object' && value !== null && typeof (value as Error).name === 'string' && typeof (value as Error).message === 'string'
  );
}

export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (isErrorLike(reason)) return reason;
  return new DOMException(typeof reason === 'string' ? reason : 'The operation was aborted', 'AbortError');
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw abortReason(signal);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Rejects `promise`'s waiter when `signal` aborts (for clients that take no signal). */
export function raceAbort<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

export function isAbortError(err: unknown): boolean {
  return isErrorLike(err) && (err.name === 'AbortError' || err.name === 'APIUserAbortError');
}
