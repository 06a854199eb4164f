import {
  BudgetExhaustedError,
  ConflictError,
  DuplicateError,
  ForbiddenError,
  InvalidInputError,
  MalformedRequestError,
  NotFoundError,
  NotImplementedError,
  RateLimitedError,
  TooLargeError,
  UnauthenticatedError,
  UnavailableError,
  UnsupportedMediaError,
} from '../../src/domain/errors';
import { bodyError, problemHeaders, toProblem } from '../../src/http/errors';
import { Problem } from '../../src/http/problem';
import { Neo4jError } from 'neo4j-driver';

const body = (err: unknown) => toProblem(err)?.body('https://errors.test', '/api/v1/x');

describe('toProblem: domain errors become problem details in one place', () => {
  it.each([
    [new MalformedRequestError('bad json'), 400, 'bad-request'],
    [new UnauthenticatedError('no credential'), 401, 'unauthorized'],
    [new BudgetExhaustedError('budget spent'), 402, 'budget-exhausted'],
    [new ForbiddenError('viewer'), 403, 'forbidden'],
    [new NotFoundError('no such document'), 404, 'not-found'],
    [new ConflictError('already running'), 409, 'conflict'],
    [new TooLargeError('too big', 1024), 413, 'payload-too-large'],
    [new UnsupportedMediaError('.exe'), 415, 'unsupported-media-type'],
    [InvalidInputError.field('mode', 'unknown'), 422, 'validation-error'],
    [new RateLimitedError('slow down', 3), 429, 'rate-limited'],
    [new NotImplementedError('embedded mode'), 501, 'error'],
    [new UnavailableError('neo4j down', 'neo4j'), 503, 'service-unavailable'],
  ])('%p answers %i', (err, status, slug) => {
    expect(body(err)).toMatchObject({ type: `https://errors.test/${slug}`, status, detail: err.message, instance: '/api/v1/x' });
  });

  it('carries the members a client needs: field errors, the duplicate, the limit, extra details', () => {
    expect(body(new InvalidInputError([{ field: 'query', message: 'must not be empty' }]))).toMatchObject({
      detail: 'query: must not be empty',
      errors: [{ field: 'query', message: 'must not be empty' }],
    });
    expect(body(new DuplicateError('same content', 'doc-1'))).toMatchObject({ status: 409, duplicate_of: 'doc-1' });
    expect(body(new TooLargeError('content too large (limit 10 MB)', 10 * 1024 * 1024))).toMatchObject({ limit_bytes: 10485760 });
    expect(body(new NotFoundError('gone', { error: 'NotFound', message: 'gone' }))).toMatchObject({ error: 'NotFound', message: 'gone' });
  });

  it('asks for Retry-After and WWW-Authenticate where they apply', () => {
    expect(problemHeaders(new RateLimitedError('slow down', 2.2))).toEqual({ 'Retry-After': '3' });
    expect(problemHeaders(new UnavailableError('redis down', 'redis', {}, 5))).toEqual({ 'Retry-After': '5' });
    expect(problemHeaders(new UnavailableError('neo4j down', 'neo4j'))).toEqual({});
    expect(problemHeaders(new UnauthenticatedError('no credential'))).toEqual({ 'WWW-Authenticate': 'Bearer, ApiKey' });
    expect(problemHeaders(Object.assign(new Error('limited'), { headers: { 'X-RateLimit-Remaining': '0' } }))).toEqual({
      'X-RateLimit-Remaining': '0',
    });
  });

  it('recognises the errors of the libraries under us', () => {
    expect(body(bodyError(Object.assign(new Error('x'), { type: 'entity.parse.failed', status: 400 }), 1024))).toMatchObject({
      status: 400,
      detail: 'failed to parse the request body as JSON',
    });
    expect(body(bodyError(Object.assign(new Error('x'), { type: 'entity.too.large', status: 413 }), 12 * 1024 * 1024))).toMatchObject({
      status: 413,
      detail: 'request body exceeds the 12 MB limit of JSON bodies',
      limit_bytes: 12 * 1024 * 1024,
    });
    for (const code of ['ServiceUnavailable', 'SessionExpired', 'ECONNREFUSED']) {
      expect(body(Object.assign(new Error('socket closed'), { code }))).toMatchObject({ status: 503 });
    }
    expect(body(Object.assign(new Error('secret internals'), { status: 404, expose: false }))).toMatchObject({
      status: 404,
      detail: 'request refused',
    });
  });

  it('passes problems through and leaves unknown errors to the 500 path', () => {
    const problem = new Problem(405, 'method TRACE is not allowed');
    expect(toProblem(problem)).toBe(problem);
    expect(toProblem(new Error('boom'))).toBeNull();
    expect(toProblem(Object.assign(new Error('boom'), { status: 500 }))).toBeNull();
    expect(toProblem('a string')).toBeNull();
  });
});

describe('toProblem: a model provider that cannot be reached', () => {
  it('answers 503 with Retry-After when the Neo4j connection pool has no connection free in time', () => {
    // As the driver's pool raises it: no code of its own, only the message.
    const message = 'Connection acquisition timed out in 5000 ms. Pool status: Active conn count = 50, Idle conn count = 0.';
    const exhausted = new Neo4jError(message, 'N/A', '50N42', 'error: general processing exception - unexpected error');
    expect(toProblem(exhausted)).toMatchObject({ status: 503, detail: 'the graph database is busy; retry shortly' });
    expect(problemHeaders(exhausted)).toEqual({ 'Retry-After': '1' });
  });

  it('is a 503 (fetch reports the refused connection as the cause of a TypeError), not an unknown error', () => {
    const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    expect(toProblem(refused)?.status).toBe(503);
    expect(toProblem(new TypeError('x is not a function'))).toBeNull();
  });
});
