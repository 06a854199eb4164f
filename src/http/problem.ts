/** RFC 7807 problem details: one class, factories with stable slugs. */

export const PROBLEM_TITLES: Record<number, [slug: string, title: string]> = {
  400: ['bad-request', 'Bad Request'],
  401: ['unauthorized', 'Unauthorized'],
  402: ['budget-exhausted', 'Budget Exhausted'],
  403: ['forbidden', 'Forbidden'],
  404: ['not-found', 'Resource Not Found'],
  405: ['method-not-allowed', 'Method Not Allowed'],
  409: ['conflict', 'Conflict'],
  413: ['payload-too-large', 'Payload Too Large'],
  415: ['unsupported-media-type', 'Unsupported Media Type'],
  422: ['validation-error', 'Validation Error'],
  429: ['rate-limited', 'Too Many Requests'],
  431: ['headers-too-large', 'Request Header Fields Too Large'],
  500: ['internal-error', 'Internal Server Error'],
  503: ['service-unavailable', 'Service Unavailable'],
};

export class Problem extends Error {
  readonly slug: string;
  readonly title: string;

  constructor(
    readonly status: number,
    readonly detail: string,
    /** Extra members of the problem body (e.g. `errors`, `duplicate_of`). */
    readonly extra: Record<string, unknown> = {},
    /** A more precise type than the status's own (e.g. `invalid-encoding` for a 400). */
    kind: [slug: string, title: string] = PROBLEM_TITLES[status] ?? ['error', 'Error'],
  ) {
    super(detail);
    const [slug, title] = kind;
    this.slug = slug;
    this.title = title;
  }

  body(typeBase: string, instance: string): Record<string, unknown> {
    return {
      type: `${typeBase}/${this.slug}`,
      title: this.title,
      status: this.status,
      detail: this.detail,
      instance,
      // EdgeQuake's clients read the explanation from `message`.
      message: this.detail,
      ...this.extra,
    };
  }
}

export interface FieldError {
  field: string;
  message: string;
}

export const badRequest = (detail: string, extra?: Record<string, unknown>) => new Problem(400, detail, extra);
export const forbidden = (detail: string) => new Problem(403, detail);
export const notFound = (detail: string, extra?: Record<string, unknown>) => new Problem(404, detail, extra);
export const conflict = (detail: string, extra?: Record<string, unknown>) => new Problem(409, detail, extra);
export const payloadTooLarge = (detail: string) => new Problem(413, detail);
export const unsupportedMediaType = (detail: string) => new Problem(415, detail);
export const serviceUnavailable = (detail: string) => new Problem(503, detail);

export function validationError(errors: FieldError[]): Problem {
  return new Problem(422, errors.map((e) => `${e.field}: ${e.message}`).join('; '), { errors });
}

export function isProblem(err: unknown): err is Problem {
  return err instanceof Problem;
}
