import { Neo4jError } from 'neo4j-driver';
import { UnauthenticatedError, UnavailableError } from '../../src/domain/errors';
import { problemHeaders, toProblem } from '../../src/http/errors';
import { lookupFailure } from '../../src/http/middleware/authenticate';

/** A credential look-up that fails for want of its store answers 503 with Retry-After, never 401. */
describe('credential look-up failures', () => {
  const neo4jError = (message: string, code: string) => new Neo4jError(message, code, '50N42', 'error: general processing exception');

  it('leaves a refused credential to the 401', () => {
    expect(lookupFailure(new UnauthenticatedError('the credential is invalid, expired or revoked'))).toBeNull();
  });

  it.each([
    ['the database unreachable', neo4jError('Could not perform discovery', 'ServiceUnavailable')],
    ['the connection pool exhausted', neo4jError('Connection acquisition timed out in 60000 ms. Pool status: Active conn count = 100', '')],
    ['a transient database error', neo4jError('deadlock', 'Neo.TransientError.Transaction.DeadlockDetected')],
    ['the open circuit', new UnavailableError('the graph database (Neo4j) is unreachable; retry shortly', 'neo4j', {}, 1)],
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
  ])('answers %s with 503 and Retry-After', (_, err) => {
    const failure = lookupFailure(err);
    expect(toProblem(failure)?.status).toBe(503);
    expect(Number(problemHeaders(failure)['Retry-After'])).toBeGreaterThan(0);
    expect(problemHeaders(failure)['WWW-Authenticate']).toBeUndefined();
  });

  it('keeps an unexpected error itself, a 500 and not a 401', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'role')");
    expect(lookupFailure(bug)).toBe(bug);
    expect(toProblem(bug)).toBeNull();
  });
});
