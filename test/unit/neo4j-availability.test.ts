import { Availability, isConnectivityError } from '../../src/store/neo4j/availability';

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
});
