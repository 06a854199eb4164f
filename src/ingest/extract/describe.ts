import { relationshipId } from '../../domain/ids';
import type { ParsedEntity, ParsedRelation } from './parser';

/**
 * What one chunk says about entities and relationships (its statements), and small helpers to combine them.
 */

export interface ChunkStatements {
  /** More than one statement per id only where names an analyst merged into one entity meet in a chunk. */
  entities: Map<string, EntityStatement[]>;
  relations: Map<string, ParsedRelation[]>;
}

export interface EntityStatement {
  name: string;
  type: string;
  description: string;
  /** False for an entity only named as a relationship endpoint. */
  explicit: boolean;
  /** Said under a name merged into the entity: that name does not vote for the entity's name. */
  aliased: boolean;
}

/**
 * Relationship endpoints that were not listed as entities still become entities (LightRAG does the same).
 * Entity ids go through `aliases` (old id -> survivor id, see graph/aliases.ts): a relationship gets the pair
 * id of its survivors, and one between two names of the same entity is dropped as a self-loop.
 */
export function statementsOf(
  extraction: { entities: ParsedEntity[]; relations: ParsedRelation[] },
  aliases: ReadonlyMap<string, string> = new Map(),
): ChunkStatements {
  const live = (id: string) => aliases.get(id) ?? id;
  const entities = new Map<string, EntityStatement[]>();
  for (const e of extraction.entities) {
    const id = live(e.id);
    push(entities, id, { name: e.name, type: e.type, description: e.description, explicit: true, aliased: id !== e.id });
  }
  const relations = new Map<string, ParsedRelation[]>();
  for (const r of extraction.relations) {
    for (const [raw, name] of [
      [r.source, r.source_name],
      [r.target, r.target_name],
    ]) {
      const id = live(raw);
      if (!entities.has(id)) push(entities, id, { name, type: 'UNKNOWN', description: '', explicit: false, aliased: id !== raw });
    }
    const relation = relationUnderAliases(r, live(r.source), live(r.target));
    if (relation) push(relations, relation.id, relation);
  }
  return { entities, relations };
}

function relationUnderAliases(r: ParsedRelation, a: string, b: string): ParsedRelation | null {
  if (a === r.source && b === r.target) return r;
  if (a === b) return null;
  const [id, source, target] = relationshipId(a, b);
  const [source_name, target_name] = source === a ? [r.source_name, r.target_name] : [r.target_name, r.source_name];
  return { ...r, id, source, target, source_name, target_name };
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Distinct non-empty fragments in order, each on one line. Fragments that differ only in case, spacing or
 * punctuation are one fragment (the first wins): they would only cost summary calls. A long list can be
 * folded in parts that share `seen` (the folded keys met so far).
 */
export function distinctFragments(fragments: string[], seen = new Set<string>()): string[] {
  const out: string[] = [];
  for (const f of fragments) {
    const text = f.replace(/\s+/g, ' ').trim();
    const key = foldedFragment(text);
    if (text && !seen.has(key)) {
      seen.add(key);
      out.push(text);
    }
  }
  return out;
}

/** Whether the fragments hold at least two distinct ones (stops at the second). */
export function severalDistinct(fragments: string[]): boolean {
  let first: string | undefined;
  for (const f of fragments) {
    const text = f.replace(/\s+/g, ' ').trim();
    if (!text) continue;
    const key = foldedFragment(text);
    if (first === undefined) first = key;
    else if (key !== first) return true;
  }
  return false;
}

/** A fragment's text compared for duplicates: lower case, letters and digits only, single spaces. */
export function foldedFragment(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
