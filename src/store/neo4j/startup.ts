import type { Neo4jClient } from './client';

const NETWORK_CODE = /\b(ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|EAI_AGAIN)\b[^\n]*/;

/** The shortest useful reason from a driver error and its causes. */
function reasonOf(err: unknown): string {
  const messages: string[] = [];
  for (let e = err as { message?: string; cause?: unknown } | undefined; e && messages.length < 5; e = e.cause as typeof e) {
    if (e.message) messages.push(e.message);
  }
  const network = messages.map((m) => NETWORK_CODE.exec(m)?.[0]).find(Boolean);
  return (network ?? messages[0] ?? String(err)).split('\n')[0].trim();
}

/**
 * Start-up check of the Neo4j connection: the server answers, accepts the credentials and has the database.
 * Throws an Error whose message is one line saying what to fix.
 */
export async function checkNeo4j(db: Neo4jClient): Promise<void> {
  const { uri, user, database } = db.settings;
  try {
    await db.driver.verifyConnectivity({ database: database ?? undefined });
    await db.readRows('schema/ping');
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    const reason = reasonOf(err);
    if (code.startsWith('Neo.ClientError.Security.')) {
      throw new Error(
        `Neo4j at ${uri} refused the credentials of NEO4J_USER ${user ? `'${user}'` : '(unset)'}: ${reason}; ` +
          'set NEO4J_USER and NEO4J_PASSWORD',
      );
    }
    if (code === 'Neo.ClientError.Database.DatabaseNotFound') {
      throw new Error(`NEO4J_DATABASE '${database}' does not exist on ${uri}: ${reason}; create it or unset NEO4J_DATABASE`);
    }
    if (code.startsWith('Neo.')) throw new Error(`Neo4j at ${uri} failed the start-up check: ${reason}`);
    throw new Error(`NEO4J_URI ${uri} is unreachable: ${reason}; start Neo4j or fix NEO4J_URI`);
  }
}
