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
    relationDescriptions: sources.flatMap((c) => {
      const said = statements.get(c);
      return said ? (relationDescriptionsByEntity(said).get(id) ?? []) : [];
    }),
  };
}

/**
 * A chunk's relation descriptions by endpoint, in the chunk's relation order; built once per chunk rather than
 * filtering every relation of the chunk for each entity it names (a chunk naming many entities paid for each).
 */
const byEndpoint = new WeakMap<ChunkStatements, Map<string, string[]>>();

function relationDescriptionsByEntity(said: ChunkStatements): Map<string, string[]> {
  let index = byEndpoint.get(said);
  if (index) return index;
  index = new Map();
  for (const list of said.relations.values()) {
    for (const r of list) {
      for (const end of r.source === r.target ? [r.source] : [r.source, r.target]) {
        const descriptions = index.get(end);
        if (descriptions) descriptions.push(r.description);
        else index.set(end, [r.description]);
      }
    }
  }
  byEndpoint.set(said, index);
  return index;
}

export function relationEvidence(statements: Statements, id: string, sources: string[]): RelationEvidence {
  return { sources, statements: sources.flatMap((c) => statements.get(c)?.relations.get(id) ?? []) };
}
