import { TimeSlicer } from '../../domain/turns';
import type { Scope } from '../../domain/types';
import type { KeyValues } from '../../store/ports';
import { type AliasedStatements, statementsUnderAliases } from './aliases';
import { type ChunkStatements, distinctFragments, type EntityStatement } from '../extract/describe';
import type { EntityEvidence, RelationEvidence } from './drafts';
import type { ParsedRelation } from '../extract/parser';
import { readExtractions } from '../extract/cache';

/** What source chunks say about one record, from their statements (../extract/describe.ts). */

export type Statements = ReadonlyMap<string, ChunkStatements>;

/** The cached extractions of the chunks, read under the ids their names now go by. */
export async function sourceStatements(kv: KeyValues, scope: Scope, chunkIds: string[]): Promise<AliasedStatements> {
  return statementsUnderAliases(kv, scope, [...(await readExtractions(kv, scope, chunkIds))]);
}

/**
 * What the source chunks say about an entity. An entity named all over a large document has thousands of
 * sources: the walk over them yields a turn whenever the slicer's stretch is used up.
 */
export async function entityEvidence(
  statements: Statements,
  id: string,
  sources: string[],
  slicer = new TimeSlicer(),
): Promise<EntityEvidence> {
  const own: EntityStatement[] = [];
  const relationDescriptions: string[] = [];
  for (const c of sources) {
    await slicer.tick();
    const said = statements.get(c);
    if (!said) continue;
    own.push(...(said.entities.get(id) ?? []));
    relationDescriptions.push(...(relationDescriptionsByEntity(said).get(id) ?? []));
  }
  // Folded here, in stretches: an entity named in thousands of chunks has thousands of fragments.
  const descriptions = await distinctInSlices(
    own.filter((s) => s.explicit).map((s) => s.description),
    slicer,
  );
  const relationFragments = descriptions.length ? [] : await distinctInSlices(relationDescriptions, slicer);
  return { sources, statements: own, relationDescriptions, distinct: { descriptions, relationDescriptions: relationFragments } };
}

const FOLD_BATCH = 64;

/**
 * `distinctFragments(fragments)`, folded `batch` fragments at a time, yielding whenever the slicer's stretch is
 * used up.
 */
export async function distinctInSlices(fragments: string[], slicer: TimeSlicer, batch = FOLD_BATCH): Promise<string[]> {
  const seen = new Set<string>();
  const out: string[] = [];
  for (let at = 0; at < fragments.length; at += batch) {
    await slicer.tick();
    out.push(...distinctFragments(fragments.slice(at, at + batch), seen));
  }
  return out;
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

export async function relationEvidence(
  statements: Statements,
  id: string,
  sources: string[],
  slicer = new TimeSlicer(),
): Promise<RelationEvidence> {
  const own: ParsedRelation[] = [];
  for (const c of sources) {
    await slicer.tick();
    own.push(...(statements.get(c)?.relations.get(id) ?? []));
  }
  const descriptions = await distinctInSlices(
    own.map((s) => s.description),
    slicer,
  );
  return { sources, statements: own, distinct: { descriptions, relationDescriptions: [] } };
}
