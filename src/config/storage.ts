import type { AppConfig } from './types';

/** Storage mode from NEO4J_URI / DATABASE_URL (docs/architecture.md §3): Neo4j when either names a Bolt/Neo4j URL, else memory. */

const NEO4J_SCHEMES = ['neo4j', 'neo4j+s', 'neo4j+ssc', 'bolt', 'bolt+s', 'bolt+ssc'];

export const POSTGRES_REFUSED =
  'DATABASE_URL: postgresql:// is not supported; persistent mode here is Neo4j (+ Qdrant for vectors): ' +
  'set NEO4J_URI=neo4j://host:7687 (or DATABASE_URL=neo4j://user:password@host:7687) and optionally QDRANT_URL';

interface StorageVars {
  DATABASE_URL?: string;
  NEO4J_URI?: string;
  NEO4J_USER?: string;
  NEO4J_PASSWORD?: string;
  NEO4J_DATABASE?: string;
}

/** Null when a problem was recorded. NEO4J_URI wins over DATABASE_URL; explicit NEO4J_* win over URL parts. */
export function resolveStorage(vars: StorageVars, problems: string[]): AppConfig['storage'] | null {
  const variable = vars.NEO4J_URI ? 'NEO4J_URI' : vars.DATABASE_URL ? 'DATABASE_URL' : null;
  if (!variable) return { mode: 'memory' };
  const raw = (vars.NEO4J_URI ?? vars.DATABASE_URL)!;

  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1]?.toLowerCase();
  if (variable === 'DATABASE_URL' && (scheme === 'postgres' || scheme === 'postgresql')) {
    problems.push(POSTGRES_REFUSED);
    return null;
  }
  if (!scheme || !NEO4J_SCHEMES.includes(scheme)) {
    problems.push(
      `${variable}: unsupported URL scheme '${scheme ?? raw.split(':')[0]}' (use ${NEO4J_SCHEMES.map((s) => `${s}://`).join(', ')})`,
    );
    return null;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push(`${variable}: not a valid URL`);
    return null;
  }
  if (!url.hostname) {
    problems.push(`${variable}: the URL names no host`);
    return null;
  }
  const database = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, '')) || null;
  // The driver gets the URL without credentials or path; they travel separately.
  const uri = `${scheme}://${url.host}${url.search}`;
  return {
    mode: 'neo4j',
    uri,
    user: vars.NEO4J_USER ?? (url.username ? decodeURIComponent(url.username) : null),
    password: vars.NEO4J_PASSWORD ?? (url.password ? decodeURIComponent(url.password) : null),
    database: vars.NEO4J_DATABASE ?? database,
  };
}
