/**
 * How often Neo4j may plan a statement of ours again.
 *
 * Neo4j plans a statement once and caches the plan; after `dbms.cypher.min_replan_interval` (10 s) it plans it
 * again whenever the counts the plan was made from have drifted, by a margin that shrinks the longer the plan
 * has lived. A workspace being ingested grows all the time, so each hot statement was planned again every few
 * seconds, by every transaction that met the stale plan at once: on the Neo4j ingest bench, 5.6 fresh plans per
 * document, and more of Neo4j's CPU planning statements than running them.
 *
 * The pacer sends a statement as written (Neo4j decides whether its plan is stale) at most once per interval,
 * and otherwise with `CYPHER replan=skip`, which uses the cached plan whatever the counts. The interval starts
 * at Neo4j's 10 s and doubles at each check up to 5 minutes, so the plans follow a growing database (a plan made
 * on an empty one is checked 10 s later) while a statement is planned a handful of times, not once per burst.
 * A statement without a cached plan is planned either way.
 */
export const REPLAN_SKIP = 'CYPHER replan=skip\n';

export interface ReplanPacing {
  /** The first interval, in milliseconds. */
  firstMs: number;
  /** The longest interval. */
  maxMs: number;
}

export const DEFAULT_REPLAN_PACING: ReplanPacing = { firstMs: 10_000, maxMs: 300_000 };

interface Due {
  at: number;
  intervalMs: number;
}

export class ReplanPacer {
  private readonly due = new Map<string, Due>();

  constructor(
    private readonly pacing: ReplanPacing = DEFAULT_REPLAN_PACING,
    private readonly now: () => number = Date.now,
  ) {}

  /** The statement to send: as written when its check is due, otherwise prefixed to keep the cached plan. */
  text(statement: string): string {
    const now = this.now();
    const due = this.due.get(statement);
    if (due === undefined) {
      this.due.set(statement, { at: now + this.pacing.firstMs, intervalMs: this.pacing.firstMs });
      return statement;
    }
    if (now < due.at) return REPLAN_SKIP + statement;
    due.intervalMs = Math.min(due.intervalMs * 2, this.pacing.maxMs);
    due.at = now + due.intervalMs;
    return statement;
  }
}
