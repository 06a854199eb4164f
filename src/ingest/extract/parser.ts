import { normalizeEntityId, normalizeRelationType, relationshipId } from '../../domain/ids';
import type { ParsedEntity, ParsedRelation } from '../../graph/extractions';
import { COMPLETION_MARKER, FIELD_DELIMITER } from '../../prompts/record-format';

export type { ParsedEntity, ParsedRelation };

/**
 * A tolerant parser for extraction output. It accepts the record format of ./format and what models make
 * of it: LightRAG-style `("entity"<|>...)` wrappers, `##` record separators, quoted fields, bullets, stray
 * whitespace, `<|#|>` delimiters, a missing completion marker. A record it cannot use is dropped and counted;
 * it never throws.
 */

export interface ParsedExtraction {
  entities: ParsedEntity[];
  relations: ParsedRelation[];
  dropped: number;
}

const MAX_NAME_LENGTH = 256;
const COMPLETION_PATTERN = new RegExp(COMPLETION_MARKER.replace(/[|]/g, '\\|'), 'gi');
const RECORD_START = /^\(?\s*["']?(entity|relation|relationship)["']?\s*(?:<\|>|<\|#\|>)/i;
const RECORD_SEPARATOR = /##\s*(?=\(?\s*["']?(?:entity|relation|relationship)["']?\s*(?:<\|>|<\|#\|>))/i;

export function parseExtraction(raw: string): ParsedExtraction {
  const records = new ExtractionSet();
  let dropped = 0;
  const text = raw.replace(/<\|#\|>/g, FIELD_DELIMITER).replace(COMPLETION_PATTERN, '\n');
  for (const line of text.split(/\r?\n/)) {
    for (const piece of line.split(RECORD_SEPARATOR)) {
      const record = unwrap(piece);
      if (!record || !looksLikeRecord(record)) continue;
      const parsed = parseRecord(record);
      if (parsed) records.add(parsed);
      else dropped++;
    }
  }
  return { ...records.result(), dropped };
}

/** Strips bullets, numbering, a trailing separator and the `( ... )` wrapper. */
function unwrap(piece: string): string {
  let s = piece.trim().replace(/^(?:[-*•]\s+|\d+[.)]\s+)/, '');
  s = s.replace(/\s*(?:##)+\s*$/, '').replace(/[,;]\s*$/, '');
  if (s.startsWith('(') && s.endsWith(')')) s = s.slice(1, -1).trim();
  else if (s.startsWith('(') && RECORD_START.test(s)) s = s.slice(1).trim();
  return s;
}

function looksLikeRecord(s: string): boolean {
  return s.includes(FIELD_DELIMITER) || /^["']?(entity|relation|relationship)["']?\b/i.test(s);
}

function parseRecord(record: string): ParsedEntity | ParsedRelation | null {
  const fields = record.split(FIELD_DELIMITER).map(cleanField);
  const kind = fields[0].toLowerCase();
  if (kind === 'entity') return entityOf(fields);
  if (kind === 'relation' || kind === 'relationship' || kind === 'relationships') return relationOf(fields);
  return null;
}

function entityOf(fields: string[]): ParsedEntity | null {
  const [, name = '', type = '', ...rest] = fields;
  const id = normalizeEntityId(name);
  if (!id || name.length > MAX_NAME_LENGTH || !/[\p{L}\p{N}]/u.test(name)) return null;
  return { id, name, type: normalizeEntityType(type), description: rest.filter(Boolean).join(' ') };
}

function relationOf(fields: string[]): ParsedRelation | null {
  const [, sourceName = '', targetName = ''] = fields;
  let keywordField: string;
  let description: string;
  if (fields.length >= 6 && /^\d+(\.\d+)?$/.test(fields[fields.length - 1])) {
    // LightRAG's older order: source, target, description, keywords, strength.
    [description, keywordField] = [fields[3], fields[4]];
  } else {
    keywordField = fields[3] ?? '';
    description = fields.slice(4).filter(Boolean).join(' ');
  }
  const a = normalizeEntityId(sourceName);
  const b = normalizeEntityId(targetName);
  if (!a || !b || a === b) return null;
  if (sourceName.length > MAX_NAME_LENGTH || targetName.length > MAX_NAME_LENGTH) return null;
  const [id, source, target] = relationshipId(a, b);
  const keywords = splitKeywords(keywordField);
  const [source_name, target_name] = source === a ? [sourceName, targetName] : [targetName, sourceName];
  return {
    id,
    source,
    target,
    source_name,
    target_name,
    keywords,
    relation_type: normalizeRelationType(keywords[0]),
    description,
  };
}

function cleanField(field: string): string {
  return field
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^["'`]+|["'`]+$/g, '')
    .trim();
}

export function normalizeEntityType(raw: string): string {
  const cleaned = raw
    .trim()
    .toUpperCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64);
  return cleaned || 'UNKNOWN';
}

function splitKeywords(field: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const k of field.split(/[,;]/)) {
    const kw = cleanField(k);
    const key = kw.toLowerCase();
    if (kw && !seen.has(key)) {
      seen.add(key);
      out.push(kw);
    }
  }
  return out;
}

/**
 * Records of one chunk, deduplicated by id across passes: the longest description wins, the first known
 * type is kept, keywords are united. `add` returns how many records were new.
 */
export class ExtractionSet {
  private readonly entities = new Map<string, ParsedEntity>();
  private readonly relations = new Map<string, ParsedRelation>();

  add(record: ParsedEntity | ParsedRelation): number {
    if ('source' in record) return this.addRelation(record);
    const known = this.entities.get(record.id);
    if (!known) {
      this.entities.set(record.id, { ...record });
      return 1;
    }
    if (record.description.length > known.description.length) known.description = record.description;
    if (known.type === 'UNKNOWN') known.type = record.type;
    return 0;
  }

  addAll(parsed: { entities: ParsedEntity[]; relations: ParsedRelation[] }): number {
    let added = 0;
    for (const e of parsed.entities) added += this.add(e);
    for (const r of parsed.relations) added += this.add(r);
    return added;
  }

  private addRelation(record: ParsedRelation): number {
    const known = this.relations.get(record.id);
    if (!known) {
      this.relations.set(record.id, { ...record, keywords: [...record.keywords] });
      return 1;
    }
    if (record.description.length > known.description.length) known.description = record.description;
    const have = new Set(known.keywords.map((k) => k.toLowerCase()));
    for (const k of record.keywords) if (!have.has(k.toLowerCase())) known.keywords.push(k);
    if (known.relation_type === 'RELATED_TO') known.relation_type = normalizeRelationType(known.keywords[0]);
    return 0;
  }

  result(): { entities: ParsedEntity[]; relations: ParsedRelation[] } {
    return { entities: [...this.entities.values()], relations: [...this.relations.values()] };
  }
}
