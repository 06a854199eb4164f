import { isIdentifier } from './cypher';

/** Relationship types the store itself uses; an extracted relation of the same name gets a suffix. */
const STRUCTURAL_TYPES = new Set(['HAS_CHUNK', 'MENTIONS', 'HAS_MESSAGE']);
const LABEL = /^[A-Z][A-Z0-9_]*$/;

/** UPPER_SNAKE form of free text: letters and digits kept, everything else one underscore. */
function upperSnake(text: string): string {
  return text
    .trim()
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60);
}

/** The second label of an entity node, e.g. `PERSON`; `UNKNOWN` when the type has no usable letters. */
export function entityTypeLabel(entityType: string): string {
  let label = upperSnake(entityType);
  if (label !== '' && !/^[A-Z]/.test(label)) label = `T_${label}`;
  return LABEL.test(label) && isIdentifier(label) ? label : 'UNKNOWN';
}

/** The Neo4j type of a relationship between entities, e.g. `WORKS_WITH`; `RELATED_TO` when unusable. */
export function relationTypeName(relationType: string): string {
  let type = upperSnake(relationType);
  if (type !== '' && !/^[A-Z]/.test(type)) type = `R_${type}`;
  if (!LABEL.test(type) || !isIdentifier(type)) return 'RELATED_TO';
  return STRUCTURAL_TYPES.has(type) ? `${type}_RELATION` : type;
}

export interface RelationshipLookup {
  id: string;
  source: string;
  target: string;
}

/**
 * Relationship ids are `${source}|${target}`; entity ids may themselves hold `|`, so every split is a candidate
 * pair of end points. Lookups then start from indexed entity nodes instead of scanning relationships.
 */
export function lookupsFor(ids: Iterable<string>): RelationshipLookup[] {
  const lookups: RelationshipLookup[] = [];
  for (const id of new Set(ids)) {
    for (let at = id.indexOf('|'); at >= 0; at = id.indexOf('|', at + 1)) {
      lookups.push({ id, source: id.slice(0, at), target: id.slice(at + 1) });
    }
  }
  return lookups;
}
