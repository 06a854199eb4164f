import { z } from 'zod';
import { type FieldError, validationError } from './problem';

/** One message per field (`content: required`), in the order zod reports them. */
export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: issue.path.length ? issue.path.join('.') : '(body)',
    message: describeIssue(issue),
  }));
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) return 'required';
  if (issue.code === 'unrecognized_keys') return `unknown field(s) ${issue.keys.join(', ')}`;
  return issue.message;
}

export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(fieldErrors(result.error));
  return result.data;
}

/**
 * A query-string integer (`?limit=10` arrives as a string), checked by `rule`. An empty value (`?limit=`) is refused
 * rather than read as 0.
 */
export const queryNumber = <T extends z.ZodType>(rule: (n: z.ZodCoercedNumber) => T) =>
  z.preprocess((v) => (v === '' ? Number.NaN : v), rule(z.coerce.number()));

/** Query-string integers within [min, max], `def` when absent. */
export const queryInt = (def: number, min: number, max: number) => queryNumber((n) => n.int().min(min).max(max).default(def));

export const queryBool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .transform((v) => v === 'true' || v === '1')
    .default(def);

/**
 * The last page a list can be asked for: with page sizes of at most 1,000 the offset stays under a billion, the
 * largest any list takes (and far inside the integers JSON carries exactly).
 */
export const MAX_PAGE = 1_000_000;

/** EdgeQuake's paging beside `limit`/`offset`: a 1-based `page` and a `page_size`. */
export const pagingAliases = {
  page: queryNumber((n) => n.int().min(1).max(MAX_PAGE).optional()).describe('1-based page (with page_size); overrides offset'),
  page_size: queryNumber((n) => n.int().min(1).optional()).describe('Page size; overrides limit'),
};

/** The window a list request asks for: `page`/`page_size` when given (page size capped at `max`), else `limit`/`offset`. */
export function pageWindow(
  q: { limit: number; offset?: number; page?: number; page_size?: number },
  max: number,
): { limit: number; offset: number } {
  const limit = Math.min(max, q.page_size ?? q.limit);
  const offset = q.page !== undefined ? (q.page - 1) * limit : (q.offset ?? 0);
  return { limit, offset };
}

const YEAR = '[1-9]\\d{3}';
const LEAP_DAY = '(?:[1-9]\\d(?:[2468][048]|[13579][26]|0[48])|[2468][048]00|[13579][26]00)-02-29';
const DAY = `${YEAR}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))`;
const TIME = '(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d{1,9})?)?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)?';
const ISO_DATE_OR_TIME = new RegExp(`^(?:${LEAP_DAY}|${DAY})(?:T${TIME})?$`);

/**
 * A calendar date (`2024-05-01`, years 1000-9999) or an ISO 8601 timestamp (`2024-05-01T10:00`, seconds and offset
 * optional). Impossible dates such as `2024-02-30` are refused; the published pattern is the one that validates.
 */
export const isoDateOrTime = (message = 'must be an ISO 8601 date (YYYY-MM-DD) or timestamp') =>
  z.string().regex(ISO_DATE_OR_TIME, message);

/** Refuses an object that has none of `keys`, and publishes the rule (an `anyOf` of required members). */
export function atLeastOneOf<T extends z.ZodType>(schema: T, keys: readonly string[], message: string, path: string[] = []) {
  return schema
    .refine((value) => keys.some((key) => (value as Record<string, unknown>)[key] !== undefined), { message, path })
    .meta({ anyOf: keys.map((key) => ({ required: [key] })) });
}

/** Refuses an object that has both `a` and `b`, and publishes the rule (`not` both required). */
export function notBoth<T extends z.ZodType>(schema: T, a: string, b: string, message: string) {
  return schema
    .refine((value) => (value as Record<string, unknown>)[a] === undefined || (value as Record<string, unknown>)[b] === undefined, {
      message,
      path: [b],
    })
    .meta({ not: { required: [a, b] } });
}

// eslint-disable-next-line no-control-regex -- the NUL character is what the rule refuses
const NO_NUL = /^[^\x00]*$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A lone UTF-16 surrogate is not Unicode text: no UTF-8 store can hold one. */
function surrogateFault(text: string): string | null {
  return LONE_SURROGATE.test(text) ? 'contains a lone UTF-16 surrogate, not valid Unicode text' : null;
}

/** `schema` that also refuses lone surrogates. */
export function unicodeText(schema: z.ZodString): z.ZodString {
  return schema.superRefine((value, ctx) => {
    const fault = surrogateFault(value);
    if (fault) ctx.addIssue({ code: 'custom', message: fault });
  });
}

/**
 * `schema` that also refuses NUL characters (a pattern the OpenAPI document publishes, so that clients and fuzzers
 * know it; `nulMessage` words the refusal) and lone surrogates.
 */
export function plainText(schema: z.ZodString, nulMessage = 'contains a NUL character, not text'): z.ZodString {
  return unicodeText(schema.regex(NO_NUL, nulMessage));
}

/** How deep and how large a free-form JSON object (document metadata) may be. */
export const JSON_OBJECT_LIMITS = { maxDepth: 32, maxBytes: 64 * 1024 };

/**
 * Why a free-form JSON value is refused: nested deeper than `maxDepth`, larger than `maxBytes` as JSON, or a key or
 * string holding a lone surrogate (no UTF-8 store can hold one; a NUL character is JSON like any other and is kept as
 * sent). Walked without recursion, so no depth can exhaust the stack.
 */
export function jsonFault(value: unknown, limits = JSON_OBJECT_LIMITS): string | null {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (typeof item === 'string') {
      const fault = surrogateFault(item);
      if (fault) return fault;
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    if (depth > limits.maxDepth) return `is nested deeper than ${limits.maxDepth} levels`;
    for (const [key, inner] of Object.entries(item)) {
      const fault = Array.isArray(item) ? null : surrogateFault(key);
      if (fault) return `has a key that ${fault}`;
      stack.push([inner, depth + 1]);
    }
  }
  if (Buffer.byteLength(JSON.stringify(value) ?? '') > limits.maxBytes) return `is larger than ${limits.maxBytes / 1024} KB as JSON`;
  return null;
}

/** A free-form JSON object within JSON_OBJECT_LIMITS. */
export const boundedJsonObject = (message?: string) =>
  z.record(z.string(), z.unknown(), message ? { message } : undefined).superRefine((value, ctx) => {
    const fault = jsonFault(value);
    if (fault) ctx.addIssue({ code: 'custom', message: fault });
  });
