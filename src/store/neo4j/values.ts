import neo4j from 'neo4j-driver';

/**
 * Conversion at the store boundary: what comes out of the driver becomes plain JSON-like values
 * (Integer -> number, temporal -> ISO string, nodes and relationships -> their properties).
 */
export function toPlain(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object') return typeof value === 'bigint' ? Number(value) : value;
  if (Array.isArray(value)) return value.map(toPlain);
  // Maps come out of the driver as plain objects: most of what a record holds, checked first.
  if (Object.getPrototypeOf(value) === Object.prototype) return plainMap(value as Record<string, unknown>);
  if (neo4j.isInt(value)) return value.toNumber();
  if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<number>);
  if (isTemporal(value)) return temporalToIso(value);
  if (neo4j.isNode(value) || neo4j.isRelationship(value)) return toPlain(value.properties);
  return plainMap(value as Record<string, unknown>);
}

function plainMap(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in value) if (Object.hasOwn(value, key)) out[key] = toPlain(value[key]);
  return out;
}

function isTemporal(value: object): boolean {
  return (
    neo4j.isDateTime(value) ||
    neo4j.isLocalDateTime(value) ||
    neo4j.isDate(value) ||
    neo4j.isTime(value) ||
    neo4j.isLocalTime(value) ||
    neo4j.isDuration(value)
  );
}

/** Zoned date-times become UTC `toISOString()` form; other temporals keep their ISO text. */
function temporalToIso(value: object): string {
  if (neo4j.isDateTime(value)) return value.toStandardDate().toISOString();
  return String(value);
}

/** An integer property value (stored as a Neo4j integer, not a float); other numbers pass through. */
export function int(value: number | null | undefined): unknown {
  if (value === null || value === undefined) return null;
  return Number.isSafeInteger(value) ? neo4j.int(value) : value;
}

/**
 * Largest offset or limit sent: list slices (`list[$offset..($offset + $limit)]`) take Java int indexes, so both
 * bounds and their sum must stay below 2^31. No list holds that many items, so a larger offset reads the same (nothing).
 */
const MAX_SLICE_BOUND = 2 ** 30 - 1;

/** Integer query parameters (SKIP, LIMIT, slice bounds) must not be floats, nor overflow a slice index. */
export function count(value: number): unknown {
  return neo4j.int(Math.min(MAX_SLICE_BOUND, Math.max(0, Math.floor(value))));
}

/**
 * Timestamps are stored as UTC ISO-8601 strings in `toISOString()` form, so that they sort and compare
 * correctly as strings; text that is not a timestamp is kept as given.
 */
export function timestamp(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? value : new Date(parsed).toISOString();
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value);
}

export function strOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

export function num(value: unknown): number {
  return typeof value === 'number' ? value : Number(value ?? 0);
}

export function numOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

export function json<T>(value: unknown, fallback: T): T {
  if (typeof value !== 'string') return fallback;
  try {
    return JSON.parse(value) as T;
  } catch {
    return fallback;
  }
}
