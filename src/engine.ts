/**
 * The process state of one runtime: what its work holds between calls (call slots, LLM calls in flight and cache
 * entries waiting to be written, the entity lock, worker threads, background refreshes, connections). Each part is
 * created by the composition root and handed to those who use it; none lives in a module, so two runtimes in one
 * process share nothing. The engine closes every part it owns with one `close()`, the part owned last first: the
 * composition root owns what others depend on before them (the stores first, the task workers last), so what runs
 * stops before what it writes to is closed.
 */

export interface Closable {
  close(): Promise<void>;
}

export interface Engine {
  /** Closes `part` with the engine (before what was owned earlier); answers `part`. */
  own<T extends Closable>(part: T): T;
  /**
   * Closes every part, the last owned first; a part that fails to close does not keep the others open, and the
   * first failure is thrown once all have been closed.
   */
  close(): Promise<void>;
}

export function createEngine(): Engine {
  const parts: Closable[] = [];
  let closing: Promise<void> | null = null;
  return {
    own(part) {
      if (closing) throw new Error('the engine is closed');
      parts.push(part);
      return part;
    },
    close() {
      closing ??= (async () => {
        const failures: unknown[] = [];
        for (const part of parts.reverse()) await part.close().catch((err: unknown) => failures.push(err));
        if (failures.length > 0) throw failures[0];
      })();
      return closing;
    },
  };
}
