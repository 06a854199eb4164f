import type { Logger } from '../../logger';
import type { Neo4jClient } from './client';
import { type Migration, cypherText, loadMigrations } from './cypher';
import { int, num, strOrNull } from './values';

export interface SchemaState {
  latest_version: number;
  migrations_applied: number;
  last_applied_at: string | null;
}

/**
 * Applies the numbered migrations not yet recorded, in order, each statement in its own transaction (schema
 * changes cannot share one), then records `(:Migration {version, name, applied_at})`. Statements are
 * idempotent (`IF NOT EXISTS`), so two instances starting together do no harm.
 */
export async function applyMigrations(db: Neo4jClient, log: Logger, migrations: Migration[] = loadMigrations()): Promise<number> {
  const applied = new Set((await db.readRows('schema/migrations-applied')).map((row) => num(row.version)));
  let count = 0;
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    for (const statement of migration.statements) await db.runSchema(statement);
    await db.writeRows('schema/record-migration', {
      version: int(migration.version),
      name: migration.name,
      applied_at: new Date().toISOString(),
    });
    log.info({ version: migration.version, name: migration.name }, 'neo4j migration applied');
    count += 1;
  }
  if (count > 0) await db.runSchema(cypherText('schema/await-indexes'));
  return count;
}

export async function readSchema(db: Neo4jClient): Promise<SchemaState> {
  const [row] = await db.readRows('schema/migration-summary');
  return {
    latest_version: num(row?.latest_version ?? 0),
    migrations_applied: num(row?.migrations_applied ?? 0),
    last_applied_at: strOrNull(row?.last_applied_at),
  };
}
