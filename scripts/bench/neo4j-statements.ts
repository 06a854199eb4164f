/**
 * Times every Cypher statement the service sends (auto-commit and explicit transactions alike, by patching the
 * driver's `run`), keeps the parameters of the last call of each, and PROFILEs each statement once with them.
 */
import { performance } from 'node:perf_hooks';
import neo4j, { type Driver, Session, Transaction } from 'neo4j-driver';
import { REPLAN_SKIP } from '../../src/store/neo4j/replan';

interface Timing {
  text: string;
  count: number;
  ms: number;
  params: Record<string, unknown>;
  /** Bytes of the parameters and of the records returned, as JSON (close to their size on the wire for text). */
  sent: number;
  received: number;
}

export interface StatementTimer {
  start(): void;
  stop(): void;
  /** Per statement: calls and total milliseconds since start(), slowest in total first. */
  timings(): Timing[];
}

/** The statement as written in its file: without the pacing prefix (src/store/neo4j/replan.ts). */
function written(text: string): string {
  return text.startsWith(REPLAN_SKIP) ? text.slice(REPLAN_SKIP.length) : text;
}

/** The statement without its comment lines, on one line. */
export function statementKey(text: string): string {
  return written(text)
    .split('\n')
    .filter((line) => !line.trim().startsWith('//'))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const jsonBytes = (value: unknown) =>
  Buffer.byteLength(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)) ?? '');

type Run = (this: unknown, text: unknown, params?: unknown, config?: unknown) => PromiseLike<unknown>;

export function timeStatements(): StatementTimer {
  const seen = new Map<string, Timing>();
  let on = false;
  const wrap = (proto: { run: Run }) => {
    const original = proto.run;
    proto.run = function (this: unknown, text: unknown, params?: unknown, config?: unknown) {
      const result = original.call(this, text, params, config);
      if (!on || typeof text !== 'string') return result;
      const started = performance.now();
      const note = (answer: unknown) => {
        const key = statementKey(text);
        const t = seen.get(key) ?? { text: written(text), count: 0, ms: 0, params: {}, sent: 0, received: 0 };
        t.count += 1;
        t.ms += performance.now() - started;
        t.params = (params ?? {}) as Record<string, unknown>;
        t.sent += jsonBytes(params ?? {});
        const records = (answer as { records?: Array<{ toObject(): unknown }> } | undefined)?.records ?? [];
        for (const record of records) t.received += jsonBytes(record.toObject());
        seen.set(key, t);
      };
      result.then(note, () => undefined);
      return result;
    } as Run;
  };
  wrap(Session.prototype as unknown as { run: Run });
  wrap(Transaction.prototype as unknown as { run: Run });
  return {
    start: () => {
      seen.clear();
      on = true;
    },
    stop: () => {
      on = false;
    },
    timings: () => [...seen.values()].sort((a, b) => b.ms - a.ms),
  };
}

interface PlanNode {
  operatorType: string;
  dbHits: number;
  rows: number;
  arguments: Record<string, unknown>;
  children: PlanNode[];
}

export interface ProfileSummary {
  dbHits: number;
  rows: number;
  /** Operators from the leaves up, with the index each seek or scan used. */
  operators: string;
}

function flatten(node: PlanNode, out: PlanNode[] = []): PlanNode[] {
  for (const child of node.children) flatten(child, out);
  out.push(node);
  return out;
}

function operatorName(node: PlanNode): string {
  const name = node.operatorType.replace(/@.*$/, '');
  const details = String(node.arguments.Details ?? '');
  return /Index|Scan|Seek/.test(name) && details ? `${name}(${details.slice(0, 60)})` : name;
}

/** PROFILE of one statement with the given parameters, read-only (writes are refused, never run). */
export async function profileStatement(driver: Driver, text: string, params: Record<string, unknown>): Promise<ProfileSummary> {
  const session = driver.session({ defaultAccessMode: neo4j.session.READ });
  try {
    const result = await session.executeRead((tx) => tx.run(`PROFILE ${text}`, params));
    const plan = result.summary.profile as unknown as PlanNode | false;
    if (!plan) return { dbHits: 0, rows: 0, operators: '' };
    const nodes = flatten(plan);
    return {
      dbHits: nodes.reduce((sum, n) => sum + n.dbHits, 0),
      rows: plan.rows,
      operators: nodes
        .filter((n) => n.operatorType !== 'ProduceResults')
        .map(operatorName)
        .join(' > '),
    };
  } finally {
    await session.close();
  }
}

/** What Neo4j recorded about the statements it planned and ran while collecting (`db.stats`, section QUERIES). */
export interface PlanSummary {
  invocations: number;
  /** Time in the compile phase (a plan-cache lookup when the plan is cached), summed over every invocation. */
  compileMs: number;
  executeMs: number;
  /**
   * Invocations over 5 ms in the compile phase, among the first 100 Neo4j keeps of each statement: fresh plans, and
   * lookups that waited (for the CPU, or for another session planning the same statement).
   */
  plans: number;
  planMs: number;
  /** Statements by time in the compile phase, most first. */
  top: Array<{ text: string; invocations: number; compileMs: number; plans: number }>;
}

const PLANNED_US = 5_000;

type Stat = { low: number; high: number } | number | null | undefined;
const statNumber = (value: Stat) => (typeof value === 'object' && value !== null ? value.low + value.high * 2 ** 32 : Number(value ?? 0));

interface QueryStats {
  query: string;
  invocationSummary: { invocationCount: Stat; compileTimeInUs: { avg: Stat }; executionTimeInUs: { avg: Stat } };
  invocations: Array<{ elapsedCompileTimeInUs: Stat }>;
}

/** Collects Neo4j's query statistics from `start()` until `stop()`, which summarises them. */
export function collectPlans(driver: Driver): { start(): Promise<void>; stop(): Promise<PlanSummary> } {
  const call = async (text: string) => {
    const session = driver.session();
    try {
      return (await session.run(text)).records;
    } finally {
      await session.close();
    }
  };
  return {
    start: async () => {
      await call("CALL db.stats.clear('QUERIES')");
      await call("CALL db.stats.collect('QUERIES', {durationSeconds: 3600})");
    },
    stop: async () => {
      const records = await call("CALL db.stats.retrieve('QUERIES') YIELD data RETURN data");
      await call("CALL db.stats.stop('QUERIES')");
      const byText = new Map<string, PlanSummary['top'][number] & { executeMs: number; planMs: number }>();
      for (const record of records) {
        const data = record.get('data') as QueryStats;
        // Neo4j keeps one entry per statement and plan: a statement planned again may appear several times.
        const text = statementKey(data.query);
        const entry = byText.get(text) ?? { text, invocations: 0, compileMs: 0, plans: 0, executeMs: 0, planMs: 0 };
        const count = statNumber(data.invocationSummary.invocationCount);
        entry.invocations += count;
        entry.compileMs += (count * statNumber(data.invocationSummary.compileTimeInUs.avg)) / 1000;
        entry.executeMs += (count * statNumber(data.invocationSummary.executionTimeInUs.avg)) / 1000;
        for (const invocation of data.invocations) {
          const us = statNumber(invocation.elapsedCompileTimeInUs);
          if (us > PLANNED_US) {
            entry.plans += 1;
            entry.planMs += us / 1000;
          }
        }
        byText.set(text, entry);
      }
      const all = [...byText.values()];
      const sum = (pick: (e: (typeof all)[number]) => number) => all.reduce((n, e) => n + pick(e), 0);
      return {
        invocations: sum((e) => e.invocations),
        compileMs: sum((e) => e.compileMs),
        executeMs: sum((e) => e.executeMs),
        plans: sum((e) => e.plans),
        planMs: sum((e) => e.planMs),
        top: all
          .sort((a, b) => b.compileMs - a.compileMs)
          .slice(0, 5)
          .map(({ text, invocations, compileMs, plans }) => ({ text, invocations, compileMs, plans })),
      };
    },
  };
}
