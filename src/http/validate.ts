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

/** Query-string integers: `?limit=10` arrives as a string. */
export const queryInt = (def: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(def);

export const queryBool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .transform((v) => v === 'true' || v === '1')
    .default(def);

/** EdgeQuake's paging beside `limit`/`offset`: a 1-based `page` and a `page_size`. */
export const pagingAliases = {
  page: z.coerce.number().int().min(1).optional().describe('1-based page (with page_size); overrides offset'),
  page_size: z.coerce.number().int().min(1).optional().describe('Page size; overrides limit'),
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
