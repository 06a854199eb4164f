import { initialsOf, isAcronym, nameKey, nameWords } from '../../domain/entity-names';
import type { EntityRecord, Scope } from '../../domain/types';
import type { KeyValueStore } from '../../store/ports';
import type { EntityLocks } from '../../records/locks';

/**
 * The entity name index of resolution (KV namespace `entity_name_index`): term -> ids of the entities whose name
 * has it, newest last, at most TERM_LIMIT per term. Terms: the normalised name (`k:`), the initials of a name of
 * several words (`i:`), each word of three letters or more (`w:`), the first four letters (`p:`) and the consonants
 * in order, each run of one written once (`c:`, three or more: "Glboex" and "Globex" are both `glbx`), so that a name
 * finds its look-alikes, acronyms and misspellings by a few key reads, never by a scan. The consonants catch a
 * misspelling in the first four letters (a swapped, missing or doubled vowel), which no other term shares. Ids of entities
 * deleted since stay until the term is written again; readers drop the ids they cannot load.
 */

export const NAME_INDEX_NAMESPACE = 'entity_name_index';
const TERM_LIMIT = 64;

/** The terms an entity's name is indexed under. */
export function indexTerms(name: string): string[] {
  const key = nameKey(name);
  if (!key) return [];
  const compact = key.replace(/ /g, '');
  const terms = new Set([`k:${key}`, `p:${compact.slice(0, 4)}`]);
  const initials = initialsOf(name);
  if (initials) terms.add(`i:${initials}`);
  for (const w of nameWords(name)) if (w.length >= 3) terms.add(`w:${w}`);
  const consonants = consonantsOf(compact);
  if (consonants.length >= 3) terms.add(`c:${consonants}`);
  return [...terms];
}

/** The consonants of a normalised name in order, a letter repeated in a row written once ("globex" -> "glbx"). */
function consonantsOf(compact: string): string {
  return compact.replace(/[aeiouy]/g, '').replace(/(.)\1+/g, '$1');
}

/** The terms to read for a name: its own, plus the names its initials or its acronym may stand for. */
export function lookupTerms(name: string): string[] {
  const terms = new Set(indexTerms(name));
  const initials = initialsOf(name);
  if (initials) terms.add(`k:${initials}`);
  if (isAcronym(name)) terms.add(`i:${nameKey(name).replace(/ /g, '')}`);
  return [...terms];
}

/**
 * Adds entities to the index, under a lock per term (the read-modify-write of a term's list). A term that lists
 * them all already is left as it is, without the lock, unless one of them is among the first to go from its full
 * list: a name that documents keep naming stays findable, and most documents name entities indexed before.
 */
export async function indexEntities(
  kv: KeyValueStore,
  locks: EntityLocks,
  scope: Scope,
  entities: Pick<EntityRecord, 'id' | 'name'>[],
): Promise<void> {
  const byTerm = new Map<string, string[]>();
  for (const e of entities) for (const t of indexTerms(e.name)) byTerm.set(t, [...(byTerm.get(t) ?? []), e.id]);
  if (byTerm.size === 0) return;
  const listed = await kv.getMany<string[]>(scope, NAME_INDEX_NAMESPACE, [...byTerm.keys()]);
  const terms = [...byTerm.keys()].filter((term) => needsWrite(listed.get(term) ?? [], byTerm.get(term) ?? []));
  if (terms.length === 0) return;
  await locks.run(
    scope,
    terms.map((t) => `name-index:${t}`),
    async () => {
      const current = await kv.getMany<string[]>(scope, NAME_INDEX_NAMESPACE, terms);
      const writes: Array<[string, string[]]> = [];
      for (const term of terms) {
        const before = current.get(term) ?? [];
        const added = byTerm.get(term) ?? [];
        const next = [...before.filter((id) => !added.includes(id)), ...added].slice(-TERM_LIMIT);
        if (next.length !== before.length || next.some((id, i) => id !== before[i])) writes.push([term, next]);
      }
      if (writes.length) await kv.setMany(scope, NAME_INDEX_NAMESPACE, writes);
    },
  );
}

/** Whether adding `ids` to a term's list changes it: an id not in it, or one that a full list drops among the first. */
function needsWrite(list: string[], ids: string[]): boolean {
  return ids.some((id) => {
    const at = list.indexOf(id);
    return at < 0 || (list.length >= TERM_LIMIT && at < TERM_LIMIT / 4);
  });
}

/** Ids indexed under a name's lookup terms, the most terms shared first. */
export async function lookupName(kv: KeyValueStore, scope: Scope, name: string, limit: number): Promise<string[]> {
  return (await lookupNames(kv, scope, [name], limit))[0];
}

/** lookupName for several names, their terms read at once: the ids of each name in its place. */
export async function lookupNames(kv: KeyValueStore, scope: Scope, names: string[], limit: number): Promise<string[][]> {
  const terms = names.map(lookupTerms);
  const lists = await kv.getMany<string[]>(scope, NAME_INDEX_NAMESPACE, [...new Set(terms.flat())]);
  return terms.map((own) => {
    const hits = new Map<string, number>();
    for (const term of own) {
      const weight = term.startsWith('k:') || term.startsWith('i:') ? 3 : 1;
      for (const id of lists.get(term) ?? []) hits.set(id, (hits.get(id) ?? 0) + weight);
    }
    return [...hits.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([id]) => id);
  });
}
