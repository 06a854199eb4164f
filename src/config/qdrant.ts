import type { QdrantConfig, QdrantReadConsistency } from './types';

/**
 * Qdrant for vectors (QDRANT_*): one server, or the nodes of a cluster. QDRANT_URL lists one or more nodes,
 * comma-separated; requests go to the first that answers, and move to the next when it stops answering (every node
 * of a cluster serves every collection). The collection layout applies when the service creates a collection:
 * shards, copies of each shard, and how many copies confirm a write; reads ask as many copies as the read
 * consistency says.
 */

interface QdrantVars {
  QDRANT_URL?: string;
  QDRANT_API_KEY?: string;
  QDRANT_SHARDS?: number;
  QDRANT_REPLICATION_FACTOR?: number;
  QDRANT_WRITE_CONSISTENCY?: number;
  QDRANT_READ_CONSISTENCY?: string;
}

const NAMED_READS: readonly QdrantReadConsistency[] = ['all', 'majority', 'quorum'];

/** Null without QDRANT_URL, and when a problem was recorded. */
export function resolveQdrant(vars: QdrantVars, problems: string[]): QdrantConfig | null {
  if (!vars.QDRANT_URL) return null;
  const urls = vars.QDRANT_URL.split(',').map((url) => url.trim().replace(/\/+$/, ''));
  const copies = vars.QDRANT_REPLICATION_FACTOR ?? 1;
  const before = problems.length;
  if (vars.QDRANT_WRITE_CONSISTENCY !== undefined && vars.QDRANT_WRITE_CONSISTENCY > copies) {
    problems.push(
      `QDRANT_WRITE_CONSISTENCY: a write cannot be confirmed by more copies than QDRANT_REPLICATION_FACTOR (${copies}), ` +
        `got ${vars.QDRANT_WRITE_CONSISTENCY}`,
    );
  }
  const read = readConsistency(vars.QDRANT_READ_CONSISTENCY, copies, problems);
  if (problems.length > before) return null;
  return {
    urls,
    apiKey: vars.QDRANT_API_KEY ?? null,
    shards: vars.QDRANT_SHARDS ?? null,
    replicationFactor: vars.QDRANT_REPLICATION_FACTOR ?? null,
    writeConsistency: vars.QDRANT_WRITE_CONSISTENCY ?? null,
    readConsistency: read,
  };
}

function readConsistency(raw: string | undefined, copies: number, problems: string[]): QdrantReadConsistency | null {
  if (raw === undefined) return null;
  const value = raw.trim().toLowerCase();
  if (NAMED_READS.includes(value as QdrantReadConsistency)) return value as QdrantReadConsistency;
  const n = /^[0-9]+$/.test(value) ? Number(value) : NaN;
  if (Number.isSafeInteger(n) && n >= 1 && n <= copies) return n;
  problems.push(
    `QDRANT_READ_CONSISTENCY: must be all, majority, quorum or a number of copies from 1 to QDRANT_REPLICATION_FACTOR (${copies}), got '${raw}'`,
  );
  return null;
}
