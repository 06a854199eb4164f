import type { Scope } from '../domain/types';
import type { KeyValueStore } from '../store/ports';
import { type AliasedStatements, statementsUnderAliases } from './aliases';
import type { ChunkStatements } from './describe';
import type { EntityEvidence, RelationEvidence } from './drafts';
import { readExtractions } from './extract/cache';

/** What source chunks say about one record, from their statements (./describe.ts). */

export type Statements = ReadonlyMap<string, ChunkStatements>;

/** The cached extractions of the chunks, read under the ids their names now go by. */
export async function sourceStatements(kv: KeyValueStore, scope: Scope, chunkIds: string[]): Promise<AliasedStatements> {
  return statementsUnderAliases(kv, scope, [...(await readExtractions(kv, scope, chunkIds))]);
}

export function entityEvidence(statements: Statements, id: string, sources: string[]): EntityEvidence {
  return {
    sources,
    statements: sources.flatMap((c) => statements.get(c)?.entities.get(id) ?? []),
    relationDescriptions: sources.flatMap((c) =>
      [...(statements.get(c)?.relations.values() ?? [])]
        .flat()
        .filter((r) => r.source === id || r.target === id)
        .map((r) => r.description),
    ),
  };
}

export function relationEvidence(statements: Statements, id: string, sources: string[]): RelationEvidence {
  return { sources, statements: sources.flatMap((c) => statements.get(c)?.relations.get(id) ?? []) };
}
