import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * Neo4j going away and coming back, through a TCP relay the test can cut: requests fail with 503 problem
 * details while the database is unreachable, /health says so, and everything recovers without a restart.
 */
jest.setTimeout(120_000);

class Relay {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    if (this.server) return;
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Refuses new connections and drops the open ones, as a stopped server would. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}

describe('persistent mode: Neo4j outage and recovery', () => {
  const target = new URL(process.env.TEST_NEO4J_URI as string);
  const relay = new Relay({ host: target.hostname, port: Number(target.port) });
  let app: TestApp;

  beforeAll(async () => {
    await relay.open();
    app = await startTestApp({ NEO4J_URI: `bolt://127.0.0.1:${relay.port}` }, { start: false });
  });

  afterAll(async () => {
    await relay.open();
    await app?.close();
    await relay.cut();
  });

  it('answers 503 service-unavailable while Neo4j is unreachable, reports it in /health, and recovers', async () => {
    const health = async () => (await (await app.request('/health')).json()) as Record<string, any>;
    expect(await health()).toMatchObject({ status: 'healthy', storage_mode: 'neo4j', components: { graph_storage: true } });
    expect((await app.request('/api/v1/graph/stats')).status).toBe(200);
    const key = await app.createApiKey({ role: 'viewer' });
    const withKey = () => app.request('/api/v1/graph/stats', { headers: { 'X-API-Key': key } });
    expect((await withKey()).status).toBe(200);

    await relay.cut();
    const during = await health();
    expect(during).toMatchObject({
      status: 'degraded',
      // Vectors in Qdrant (when the runner gives one) stay reachable; in Neo4j's own indexes they go with it.
      components: { kv_storage: false, vector_storage: app.config.qdrant !== null, graph_storage: false },
    });
    expect(during.schema.latest_version).toBeGreaterThan(0);
    const refused = await app.request('/api/v1/graph/stats');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(await refused.json()).toMatchObject({ status: 503, type: expect.stringMatching(/\/service-unavailable$/) });
    // A valid key whose look-up meets the outage is not a bad key: 503 with Retry-After, never 401.
    for (let i = 0; i < 3; i++) {
      const keyed = await withKey();
      expect(keyed.status).toBe(503);
      expect(Number(keyed.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(keyed.headers.get('www-authenticate')).toBeNull();
    }

    await relay.open();
    expect(await health()).toMatchObject({ status: 'healthy', components: { graph_storage: true } });
    const back = await app.request('/api/v1/graph/stats');
    expect(back.status).toBe(200);
    expect((await withKey()).status).toBe(200);
  });
});
