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
