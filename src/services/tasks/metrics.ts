/** A finished document run, as the pipeline rates see it. */
export interface CompletionEvent {
  at: number;
  workspaceId: string;
  chunks: number;
  embeddings: number;
}

const WINDOW_MS = 60_000;
const MAX_EVENTS = 10_000;

/** The last minute of completions of this instance: a small ring, enough for per-minute rates. */
export class CompletionLog {
  private readonly events: CompletionEvent[] = [];

  record(event: CompletionEvent): void {
    this.events.push(event);
    this.prune(event.at);
    if (this.events.length > MAX_EVENTS) this.events.splice(0, this.events.length - MAX_EVENTS);
  }

  lastMinute(workspaceId: string, now = Date.now()): { documents: number; chunks: number; embeddings: number } {
    this.prune(now);
    const totals = { documents: 0, chunks: 0, embeddings: 0 };
    for (const e of this.events) {
      if (e.workspaceId !== workspaceId) continue;
      totals.documents += 1;
      totals.chunks += e.chunks;
      totals.embeddings += e.embeddings;
    }
    return totals;
  }

  private prune(now: number): void {
    let drop = 0;
    while (drop < this.events.length && this.events[drop].at < now - WINDOW_MS) drop++;
    if (drop) this.events.splice(0, drop);
  }
}

/** Nearest-rank percentile of ascending values; 0 when there are none. */
export function nearestRank(sortedAsc: number[], percentile: number): number {
  if (sortedAsc.length === 0) return 0;
  const rank = Math.ceil((percentile / 100) * sortedAsc.length);
  return sortedAsc[Math.min(sortedAsc.length, Math.max(1, rank)) - 1];
}
