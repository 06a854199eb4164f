import type { ParsedEntity, ParsedRelation } from './extract/parser';

/**
 * What one chunk says about entities and relationships, and how the statements of all source chunks
 * combine into one record's fields. Pure functions: a record is always rebuilt from its sources.
 */

export interface ChunkStatements {
  entities: Map<string, EntityStatement>;
  relations: Map<string, ParsedRelation>;
}

export interface EntityStatement {
  name: string;
  type: string;
  description: string;
  /** False for an entity only named as a relationship endpoint. */
  explicit: boolean;
}

/** Relationship endpoints that were not listed as entities still become entities (LightRAG does the same). */
export function statementsOf(extraction: { entities: ParsedEntity[]; relations: ParsedRelation[] }): ChunkStatements {
  const entities = new Map<string, EntityStatement>();
  for (const e of extraction.entities) {
    entities.set(e.id, { name: e.name, type: e.type, description: e.description, explicit: true });
  }
  const relations = new Map<string, ParsedRelation>();
  for (const r of extraction.relations) {
    relations.set(r.id, r);
    for (const [id, name] of [
      [r.source, r.source_name],
      [r.target, r.target_name],
    ]) {
      if (!entities.has(id)) entities.set(id, { name, type: 'UNKNOWN', description: '', explicit: false });
    }
  }
  return { entities, relations };
}

/** The most frequent value; ties go to the one seen first. */
export function majority(values: string[]): string | undefined {
  const counts = new Map<string, number>();
  let best: string | undefined;
  let bestCount = 0;
  for (const v of values) {
    const c = (counts.get(v) ?? 0) + 1;
    counts.set(v, c);
    if (c > bestCount) {
      best = v;
      bestCount = c;
    }
  }
  return best;
}

/** Distinct non-empty fragments in order (compared ignoring case and spacing). */
export function distinctFragments(fragments: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const f of fragments) {
    const text = f.replace(/\s+/g, ' ').trim();
    const key = text.toLowerCase();
    if (text && !seen.has(key)) {
      seen.add(key);
      out.push(text);
    }
  }
  return out;
}

export function distinctKeywords(lists: string[][]): string[] {
  return distinctFragments(lists.flat());
}

export interface EntityFields {
  name: string;
  entity_type: string;
  fragments: string[];
}

/** Name and type by majority (explicit statements first), description fragments in source order. */
export function entityFields(statements: EntityStatement[], relationDescriptions: string[]): EntityFields {
  const explicit = statements.filter((s) => s.explicit);
  const named = explicit.length ? explicit : statements;
  const types = explicit.map((s) => s.type).filter((t) => t !== 'UNKNOWN');
  let fragments = distinctFragments(explicit.map((s) => s.description));
  // An entity only ever named as an endpoint is described by its relationships.
  if (fragments.length === 0) fragments = distinctFragments(relationDescriptions);
  return { name: majority(named.map((s) => s.name)) ?? '', entity_type: majority(types) ?? 'UNKNOWN', fragments };
}

export interface RelationshipFields {
  relation_type: string;
  keywords: string[];
  fragments: string[];
}

export function relationshipFields(statements: ParsedRelation[]): RelationshipFields {
  return {
    relation_type: majority(statements.map((s) => s.relation_type)) ?? 'RELATED_TO',
    keywords: distinctKeywords(statements.map((s) => s.keywords)),
    fragments: distinctFragments(statements.map((s) => s.description)),
  };
}

/** Chunk ids are `{document_id}-chunk-{N}`. */
export function documentOfChunk(chunkId: string): string {
  const at = chunkId.lastIndexOf('-chunk-');
  return at < 0 ? chunkId : chunkId.slice(0, at);
}

export function documentsOf(chunkIds: string[]): string[] {
  return [...new Set(chunkIds.map(documentOfChunk))];
}
