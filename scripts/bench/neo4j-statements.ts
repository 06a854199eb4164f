/**
 * Times every Cypher statement the service sends (auto-commit and explicit transactions alike, by patching the
 * driver's `run`), keeps the parameters of the last call of each, and PROFILEs each statement once with them.
 */
import { performance } from 'node:perf_hooks';
import neo4j, { type Driver, Session, Transaction } from 'neo4j-driver';

interface Timing {
  text: string;
  count: number;
  ms: number;
  params: Record<string, unknown>;
}

export interface StatementTimer {
  start(): void;
  stop(): void;
  /** Per statement: calls and total milliseconds since start(), slowest in total first. */
  timings(): Timing[];
}

/** The statement without its comment lines, on one line. */
export function statementKey(text: string): string {
  return text
    .split('\n')
    .filter((line) => !line.trim().startsWith('//'))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

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
      const note = () => {
        const key = statementKey(text);
        const t = seen.get(key) ?? { text, count: 0, ms: 0, params: {} };
        t.count += 1;
        t.ms += performance.now() - started;
        t.params = (params ?? {}) as Record<string, unknown>;
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
