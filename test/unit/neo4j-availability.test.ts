import { Neo4jError } from 'neo4j-driver';
import { isOutage } from '../../src/domain/errors';
import { Availability, isConnectivityError, isPoolError, isTransientError } from '../../src/store/neo4j/availability';
import { withRetries } from '../../src/store/neo4j/retry';

/** An error as the driver raises it for a status code the database answered. */
const newError = (message: string, code: string) => new Neo4jError(message, code, '50N42', message);

/** The circuit in front of Neo4j (src/store/neo4j/availability.ts), driven by a ping the test scripts. */
describe('Neo4j availability circuit', () => {
  let answers = true;
  let pings = 0;
  const changes: boolean[] = [];
  let circuit: Availability;

  beforeEach(() => {
    answers = true;
    pings = 0;
    changes.length = 0;
    circuit = new Availability(
      async () => {
        pings += 1;
        return answers;
      },
      (up) => changes.push(up),
    );
  });

  afterEach(() => circuit.close());

  it('stays closed when the database still answers after a connection error', async () => {
    expect(await circuit.confirm()).toBe(true);
    expect(circuit.reachable).toBe(true);
    expect(changes).toEqual([]);
  });

  it('opens when a ping confirms the outage, refuses with a 503-kind error, and closes once a probe answers', async () => {
    answers = false;
    const [a, b] = await Promise.all([circuit.confirm(), circuit.confirm()]);
    expect([a, b]).toEqual([false, false]);
    expect(pings).toBe(1);
    expect(circuit.reachable).toBe(false);
    expect(circuit.refusal()).toMatchObject({ kind: 'unavailable', component: 'neo4j', retryAfterSeconds: 1 });
    expect(await circuit.confirm()).toBe(false);

    answers = true;
    while (!circuit.reachable) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(changes).toEqual([false, true]);
  });

  it('closes at once when another check sees the database answer', async () => {
    answers = false;
    await circuit.confirm();
    circuit.answered();
    expect(circuit.reachable).toBe(true);
  });

  it('recognises the driver and socket errors that mean no connection', () => {
    for (const code of ['ServiceUnavailable', 'SessionExpired', 'ECONNREFUSED', 'ECONNRESET']) {
      expect(isConnectivityError(Object.assign(new Error('x'), { code }))).toBe(true);
    }
    expect(isConnectivityError(Object.assign(new Error('x'), { code: 'Neo.ClientError.Statement.SyntaxError' }))).toBe(false);
  });

  it('recognises what Neo4j answers while it stops or starts, and other transient failures', () => {
    for (const code of [
      'Neo.TransientError.General.DatabaseUnavailable',
      'Neo.TransientError.Transaction.DeadlockDetected',
      'Neo.ClientError.Transaction.Terminated',
    ]) {
      expect(isTransientError(newError('x', code))).toBe(true);
    }
    expect(isTransientError(newError('x', 'Neo.ClientError.Schema.ConstraintValidationFailed'))).toBe(false);
    expect(isTransientError(new Error('x'))).toBe(false);
  });

  describe('a unit of work', () => {
    /** An attempt that fails with each given error in turn, then answers 'done'. */
    function failing(...errors: Error[]) {
      const calls = { count: 0 };
      const attempt = async () => {
        const err = errors[calls.count++];
        if (err) throw err;
        return 'done';
      };
      return { calls, attempt };
    }

    it('is retried after a deadlock while the database answers', async () => {
      const { calls, attempt } = failing(newError('deadlock', 'Neo.TransientError.Transaction.DeadlockDetected'));
      await expect(withRetries(circuit, attempt)).resolves.toBe('done');
      expect(calls.count).toBe(2);
      expect(circuit.reachable).toBe(true);
    });

    it('is refused at once when the database is stopping: its transactions terminated, the ping unanswered', async () => {
      answers = false;
      const { calls, attempt } = failing(newError('terminated', 'Neo.ClientError.Transaction.Terminated'));
      await expect(withRetries(circuit, attempt)).rejects.toMatchObject({ kind: 'unavailable', component: 'neo4j', retryAfterSeconds: 1 });
      expect(calls.count).toBe(1);
      expect(circuit.reachable).toBe(false);
    });

    it('answers 503-kind when transient failures outlast the retry window, with the cause kept for the log', async () => {
      const unavailable = newError('Database neo4j is unavailable', 'Neo.TransientError.General.DatabaseUnavailable');
      const { attempt } = failing(unavailable, unavailable, unavailable, unavailable);
      const err = await withRetries(circuit, attempt, 150).catch((e: unknown) => e);
      expect(err).toMatchObject({ kind: 'unavailable', component: 'neo4j', cause: unavailable });
      expect(circuit.reachable).toBe(true);
    });

    it.each([
      [
        'no connection came free in time',
        'Connection acquisition timed out in 5000 ms. Pool status: Active conn count = 50, Idle conn count = 0.',
      ],
      ['the pool was closed under it', 'Pool is closed, it is no more able to serve requests.'],
    ])('answers 503-kind at once when %s, without pinging or retrying', async (_, message) => {
      // As the driver raises them: a Neo4jError with no status code of the database's.
      const refused = new Neo4jError(message, 'N/A', 'N/A', message);
      expect(isPoolError(refused)).toBe(true);
      const { calls, attempt } = failing(refused);
      const err = await withRetries(circuit, attempt).catch((e: unknown) => e);
      expect(err).toMatchObject({ kind: 'unavailable', component: 'neo4j', cause: refused });
      expect(isOutage(err)).toBe(true);
      expect(calls.count).toBe(1);
      expect(pings).toBe(0);
      expect(circuit.reachable).toBe(true);
    });

    it('passes on an error of the request itself unchanged, without retrying it', async () => {
      const invalid = newError('constraint', 'Neo.ClientError.Schema.ConstraintValidationFailed');
      const { calls, attempt } = failing(invalid);
      await expect(withRetries(circuit, attempt)).rejects.toBe(invalid);
      expect(calls.count).toBe(1);
      expect(pings).toBe(0);
    });
  });
});
