/**
 * Rebuilds the Neo4j vector indexes of the configured embedding dimension: `node dist/maintenance/rebuild-vector-indexes.js
 * [chunk,entity,relationship]` (or `npm run neo4j:rebuild-vector-indexes -- …`), with the service's own environment
 * (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE, SERVICE_EMBEDDING_DIMENSION). Worth running after a bulk
 * load or a long run of ingestion: an index written batch by batch is searched segment by segment. The service may
 * keep running; while one kind is rebuilt, its searches are exact.
 */
import { ConfigError, loadConfig } from '../config/load';
import type { VectorKind } from '../domain/types';
import { Neo4jClient } from '../store/neo4j/client';
import { Neo4jVectorStore, VECTOR_LABELS } from '../store/neo4j/vectors';

function kindsFrom(arg: string | undefined): VectorKind[] {
  const all = Object.keys(VECTOR_LABELS) as VectorKind[];
  if (!arg) return all;
  const kinds = arg.split(',').map((k) => k.trim());
  const unknown = kinds.filter((k) => !all.includes(k as VectorKind));
  if (unknown.length > 0) throw new ConfigError([`unknown vector kind ${unknown.join(', ')}; expected ${all.join(', ')}`]);
  return kinds as VectorKind[];
}

async function main(): Promise<void> {
  const config = loadConfig();
  const kinds = kindsFrom(process.argv[2]);
  if (config.storage.mode !== 'neo4j') throw new ConfigError(['NEO4J_URI is not set: the embedded stores have no vector index to rebuild']);
  if (config.qdrant) throw new ConfigError(['QDRANT_URL is set: vectors are in Qdrant, which maintains its own indexes']);
  const { uri, user, password, database } = config.storage;
  const db = new Neo4jClient({ uri, user, password, database });
  try {
    const store = new Neo4jVectorStore(db, config.embedding.dimension);
    for (const r of await store.rebuildIndexes(kinds)) {
      process.stdout.write(`${r.index}: ${r.vectors} vectors, rebuilt in ${(r.ms / 1000).toFixed(1)} s\n`);
    }
  } finally {
    await db.close();
  }
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) process.stderr.write(`${err.problems.join('\n')}\n`);
  else process.stderr.write(`rebuild failed: ${(err as Error).message}\n`);
  process.exit(2);
});
