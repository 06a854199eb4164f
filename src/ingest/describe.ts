import type { ParsedEntity, ParsedRelation } from './extract/parser';

/**
 * What one chunk says about entities and relationships (its statements), and small helpers to combine them.
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

/** Distinct non-empty fragments in order (compared ignoring case and spacing), each on one line. */
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

/** Chunk ids are `{document_id}-chunk-{N}`. */
export function documentOfChunk(chunkId: string): string {
  const at = chunkId.lastIndexOf('-chunk-');
  return at < 0 ? chunkId : chunkId.slice(0, at);
}

export function documentsOf(chunkIds: string[]): string[] {
  return [...new Set(chunkIds.map(documentOfChunk))];
}
