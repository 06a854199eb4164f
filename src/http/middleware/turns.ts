type Waiter = { wake: () => void };

interface Line {
  running: number;
  waiting: Waiter[];
}

/**
 * Turns per workspace: at most `running` requests of a workspace run at once, the others wait in arrival order,
 * each for at most `waitMs`. `take` resolves with the function that ends the turn, or null when the wait ran out
 * or the signal fired first.
 */
export class WorkspaceTurns {
  private readonly lines = new Map<string, Line>();

  constructor(
    private readonly running: number,
    readonly waitMs: number,
  ) {}

  take(workspace: string, signal: AbortSignal): Promise<(() => void) | null> {
    if (this.running <= 0) return Promise.resolve(() => undefined);
    let line = this.lines.get(workspace);
    if (!line) {
      line = { running: 0, waiting: [] };
      this.lines.set(workspace, line);
    }
    const mine = line;
    if (mine.running < this.running && mine.waiting.length === 0) {
      mine.running += 1;
      return Promise.resolve(this.ender(workspace, mine));
    }
    return new Promise((resolve) => {
      const giveUp = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', giveUp);
        const at = mine.waiting.indexOf(waiter);
        if (at >= 0) mine.waiting.splice(at, 1);
        this.forgetIfIdle(workspace, mine);
        resolve(null);
      };
      const waiter: Waiter = {
        wake: () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', giveUp);
          mine.running += 1;
          resolve(this.ender(workspace, mine));
        },
      };
      const timer = setTimeout(giveUp, this.waitMs);
      signal.addEventListener('abort', giveUp, { once: true });
      mine.waiting.push(waiter);
    });
  }

  /** Requests of the workspace running and waiting now. */
  size(workspace: string): { running: number; waiting: number } {
    const line = this.lines.get(workspace);
    return { running: line?.running ?? 0, waiting: line?.waiting.length ?? 0 };
  }

  private ender(workspace: string, line: Line): () => void {
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      line.running -= 1;
      const next = line.waiting.shift();
      if (next) next.wake();
      else this.forgetIfIdle(workspace, line);
    };
  }

  private forgetIfIdle(workspace: string, line: Line): void {
    if (line.running === 0 && line.waiting.length === 0 && this.lines.get(workspace) === line) this.lines.delete(workspace);
  }
}
