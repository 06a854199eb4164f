import type { CostCategory, UsageRecord } from '../../domain/costs';
import { emptyTotals, type UsageTotals } from '../cost-port';

/**
 * A workspace's usage records in columns, oldest first: one record costs about 80 bytes here against about 700 as
 * an object with its own strings (an id, a timestamp, and names repeated on every record). Names are numbers into
 * a table of the workspace's names; ids in the UUID form are kept as 16 bytes and timestamps as epoch milliseconds, each
 * with the original string kept aside when it would not come back the same.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NAMES = ['workspace_id', 'tenant_id', 'operation', 'category', 'provider', 'model', 'kind', 'document_id', 'query_id'] as const;
const WIDTH = NAMES.length;

/** The strings of a workspace's rows, each once; 0 stands for null. */
export class NameTable {
  private readonly names: string[] = [''];
  private readonly codes = new Map<string, number>();

  code(name: string | null): number {
    if (name === null) return 0;
    let code = this.codes.get(name);
    if (code === undefined) {
      code = this.names.push(name) - 1;
      this.codes.set(name, code);
    }
    return code;
  }

  /** The code of a name already in the table, -1 otherwise. */
  find(name: string): number {
    return this.codes.get(name) ?? -1;
  }

  name(code: number): string | null {
    return code === 0 ? null : this.names[code];
  }
}

function uuidBytes(id: string, into: Uint8Array, at: number): boolean {
  if (!UUID.test(id)) return false;
  const hex = id.replace(/-/g, '');
  for (let i = 0; i < 16; i++) into[at + i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return true;
}

function uuidString(bytes: Uint8Array, at: number): string {
  let hex = '';
  for (let i = 0; i < 16; i++) hex += bytes[at + i].toString(16).padStart(2, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export class UsageRows {
  length = 0;
  private ids = new Uint8Array(0);
  private times = new Float64Array(0);
  /** input tokens, output tokens, cost per row. */
  private numbers = new Float64Array(0);
  private names = new Uint32Array(0);
  /** Ids and timestamps of rows that are not kept in the compact form, by row. */
  private readonly otherIds = new Map<number, string>();
  private readonly otherTimes = new Map<number, string>();

  constructor(private readonly table: NameTable) {}

  createdAt(row: number): string {
    return this.otherTimes.get(row) ?? new Date(this.times[row]).toISOString();
  }

  /** The first row created at or after `at` (`after`: strictly after), in the string order of timestamps. */
  bound(at: string, after = false): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const t = this.createdAt(mid);
      if (t < at || (after && t === at)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Inserts after every row created at the same time or before it, so that rows stay oldest first. */
  add(record: UsageRecord): void {
    const row = this.length > 0 && record.created_at < this.createdAt(this.length - 1) ? this.bound(record.created_at, true) : this.length;
    this.reserve(this.length + 1);
    if (row < this.length) this.shift(row);
    this.length += 1;
    if (!uuidBytes(record.id, this.ids, row * 16)) this.otherIds.set(row, record.id);
    const ms = Date.parse(record.created_at);
    this.times[row] = ms;
    if (Number.isNaN(ms) || new Date(ms).toISOString() !== record.created_at) this.otherTimes.set(row, record.created_at);
    this.numbers.set([record.input_tokens, record.output_tokens, record.cost_usd], row * 3);
    NAMES.forEach((field, i) => (this.names[row * WIDTH + i] = this.table.code(record[field])));
  }

  record(row: number): UsageRecord {
    const name = (i: number) => this.table.name(this.names[row * WIDTH + i]);
    return {
      id: this.otherIds.get(row) ?? uuidString(this.ids, row * 16),
      workspace_id: name(0) ?? '',
      tenant_id: name(1),
      operation: name(2) ?? '',
      category: name(3) as CostCategory,
      provider: name(4) ?? '',
      model: name(5) ?? '',
      kind: name(6) as UsageRecord['kind'],
      input_tokens: this.numbers[row * 3],
      output_tokens: this.numbers[row * 3 + 1],
      cost_usd: this.numbers[row * 3 + 2],
      created_at: this.createdAt(row),
      document_id: name(7),
      query_id: name(8),
    };
  }

  /** `totalsOf` the rows `from..to` (of one tenant when given), read from the columns: no record is built. */
  totals(from: number, to: number, tenantId?: string): UsageTotals {
    const totals = emptyTotals();
    const tenant = tenantId === undefined ? -1 : this.table.find(tenantId);
    if (tenantId !== undefined && tenant < 0) return totals;
    const documents = new Set<number>();
    const queries = new Set<number>();
    for (let row = from; row < to; row++) {
      const names = row * WIDTH;
      if (tenant >= 0 && this.names[names + 1] !== tenant) continue;
      const cost = this.numbers[row * 3 + 2];
      totals.cost_usd += cost;
      totals.input_tokens += this.numbers[row * 3];
      totals.output_tokens += this.numbers[row * 3 + 1];
      totals.calls += 1;
      totals.by_category[this.table.name(this.names[names + 3]) as CostCategory] += cost;
      if (this.names[names + 7] !== 0) documents.add(this.names[names + 7]);
      if (this.names[names + 8] !== 0) queries.add(this.names[names + 8]);
    }
    totals.documents = documents.size;
    totals.queries = queries.size;
    return totals;
  }

  private reserve(rows: number): void {
    if (rows <= this.times.length) return;
    const capacity = Math.max(64, this.times.length * 2, rows);
    const grow = <T extends Uint8Array | Float64Array | Uint32Array>(old: T, make: (n: number) => T, per: number): T => {
      const next = make(capacity * per);
      next.set(old);
      return next;
    };
    this.ids = grow(this.ids, (n) => new Uint8Array(n), 16);
    this.times = grow(this.times, (n) => new Float64Array(n), 1);
    this.numbers = grow(this.numbers, (n) => new Float64Array(n), 3);
    this.names = grow(this.names, (n) => new Uint32Array(n), WIDTH);
  }

  /** Moves rows `row..` one place up (a record older than the newest one arrived). */
  private shift(row: number): void {
    this.ids.copyWithin((row + 1) * 16, row * 16, this.length * 16);
    this.times.copyWithin(row + 1, row, this.length);
    this.numbers.copyWithin((row + 1) * 3, row * 3, this.length * 3);
    this.names.copyWithin((row + 1) * WIDTH, row * WIDTH, this.length * WIDTH);
    for (const others of [this.otherIds, this.otherTimes]) {
      const moved = [...others].map(([r, v]): [number, string] => [r >= row ? r + 1 : r, v]);
      others.clear();
      for (const [r, v] of moved) others.set(r, v);
    }
  }
}
