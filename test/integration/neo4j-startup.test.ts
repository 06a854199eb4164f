import { spawn } from 'node:child_process';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Neo4jClient } from '../../src/store/neo4j';
import { checkNeo4j } from '../../src/store/neo4j/startup';

/** Start-up checks: a persistent configuration that cannot work stops the service with one clear line. */
jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '../..');

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function runMain(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    // tsx as a loader of this very process: its CLI runs a second one, which under load can kill the service
    // instead of passing a signal on.
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent', PORT: '0', HOST: '127.0.0.1', RUST_LOG: 'silent', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('persistent mode: start-up checks', () => {
  it('exits non-zero with one line naming NEO4J_URI when Neo4j is unreachable', async () => {
    const port = await closedPort();
    const { code, stderr } = await runMain({ NEO4J_URI: `bolt://127.0.0.1:${port}` });
    expect(code).not.toBe(0);
    expect(stderr).toContain(
      `start-up failed: NEO4J_URI bolt://127.0.0.1:${port} is unreachable: ECONNREFUSED 127.0.0.1:${port}; start Neo4j or fix NEO4J_URI\n`,
    );
  });

  it('names NEO4J_USER and NEO4J_PASSWORD when Neo4j refuses the credentials', async () => {
    const db = new Neo4jClient({ uri: 'bolt://127.0.0.1:7687', user: 'neo4j', password: 'wrong', database: null });
    const refusal = Object.assign(new Error('The client is unauthorized due to authentication failure.'), {
      code: 'Neo.ClientError.Security.Unauthorized',
    });
    jest.spyOn(db.driver, 'verifyConnectivity').mockRejectedValue(refusal);
    try {
      await expect(checkNeo4j(db)).rejects.toThrow(
        "Neo4j at bolt://127.0.0.1:7687 refused the credentials of NEO4J_USER 'neo4j': The client is unauthorized due to " +
          'authentication failure.; set NEO4J_USER and NEO4J_PASSWORD',
      );
    } finally {
      await db.close();
    }
  });

  it('names NEO4J_DATABASE when the database does not exist', async () => {
    const uri = process.env.TEST_NEO4J_URI as string;
    const db = new Neo4jClient({ uri, user: null, password: null, database: 'no-such-db' });
    try {
      await expect(checkNeo4j(db)).rejects.toThrow(
        new RegExp(`^NEO4J_DATABASE 'no-such-db' does not exist on ${uri}: .+; create it or unset NEO4J_DATABASE$`),
      );
    } finally {
      await db.close();
    }
  });
});
