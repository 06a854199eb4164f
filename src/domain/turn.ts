/**
 * Resolves on a later turn of the event loop, after the I/O callbacks already due. Work that only awaits promises
 * which are already settled (in-memory stores, the offline provider) never lets timers or sockets in on its own;
 * awaiting this between units of such work bounds how long it holds the loop.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
