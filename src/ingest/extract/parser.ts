import { normalizeEntityId, normalizeRelationType, relationshipId } from '../../domain/ids';
import type { DropCounts, DropReason, ParsedEntity, ParsedRelation } from '../../records/extractions';
import { stripReasoning, unfence } from '../../llm/hygiene';
import { COMPLETION_MARKER, FIELD_DELIMITER } from '../../prompts/record-format';

export type { DropCounts, DropReason, ParsedEntity, ParsedRelation };

/**
 * A tolerant parser for extraction output. It accepts the record format of ./format and what models make
 * of it: LightRAG-style `("entity"<|>...)` wrappers, `##` record separators, quoted fields, bullets, stray
 * whitespace, `<|#|>` delimiters, a missing completion marker. A record it cannot use is dropped and counted;
 * it never throws.
 */

export interface ParsedExtraction {
  entities: ParsedEntity[];
  relations: ParsedRelation[];
  /** Records read, usable or not. */
  records: number;
  /** Records that could not be used (the sum of `dropped_by_reason`). */
  dropped: number;
  dropped_by_reason: DropCounts;
  /** Whether the output ended with the completion marker. */
  completed: boolean;
}

export function countDrop(counts: DropCounts, reason: DropReason, n = 1): void {
  if (n > 0) counts[reason] = (counts[reason] ?? 0) + n;
}

const MAX_NAME_LENGTH = 256;
const COMPLETION_PATTERN = new RegExp(COMPLETION_MARKER.replace(/[|]/g, '\\|'), 'gi');
const RECORD_START = /^\(?\s*["']?(entity|relation|relationship)["']?\s*(?:<\|>|<\|#\|>)/i;
const RECORD_SEPARATOR = /##\s*(?=\(?\s*["']?(?:entity|relation|relationship)["']?\s*(?:<\|>|<\|#\|>))/i;

export function parseExtraction(raw: string): ParsedExtraction {
  const records = new ExtractionSet();
  const dropped_by_reason: DropCounts = {};
  let count = 0;
  const visible = unfence(stripReasoning(raw));
  const completed = COMPLETION_PATTERN.test(visible);
  COMPLETION_PATTERN.lastIndex = 0;
  const text = visible.replace(/<\|#\|>/g, FIELD_DELIMITER).replace(COMPLETION_PATTERN, '\n');
  const read = (record: ParsedEntity | ParsedRelation | DropReason) => {
    count++;
    if (typeof record === 'string') countDrop(dropped_by_reason, record);
    else records.add(record);
  };
  const json = jsonRecords(text);
  if (json) json.forEach(read);
  else {
    for (const line of text.split(/\r?\n/)) {
      for (const piece of line.split(RECORD_SEPARATOR)) {
        const record = unwrap(piece);
        if (!record || !looksLikeRecord(record)) continue;
        read(parseRecord(withDelimiters(record)) ?? 'malformed');
      }
    }
  }
  const dropped = Object.values(dropped_by_reason).reduce((a, b) => a + b, 0);
  return { ...records.result(), records: count, dropped, dropped_by_reason, completed };
}

/** `entity | Name | TYPE | ...` (a single bar, or tabs) written instead of the delimiter. */
function withDelimiters(record: string): string {
  if (record.includes(FIELD_DELIMITER)) return record;
  const m = /^["']?(entity|relation|relationship)["']?\s*(\||\t)/i.exec(record);
  return m ? record.split(m[2]).join(FIELD_DELIMITER) : record;
}

/**
 * Records written as JSON instead of lines: `{"entities": [{"name", "type", "description"}], "relationships":
 * [{"source", "target", "keywords", "description"}]}` (or a bare array of such objects).
 */
function jsonRecords(text: string): Array<ParsedEntity | ParsedRelation | DropReason> | null {
  const start = text.search(/[[{]/);
  if (start < 0 || text.includes(FIELD_DELIMITER)) return null;
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, Math.max(text.lastIndexOf('}'), text.lastIndexOf(']')) + 1));
  } catch {
    return null;
  }
  const out: Array<ParsedEntity | ParsedRelation | DropReason> = [];
  const field = (o: Record<string, unknown>, ...names: string[]) => {
    for (const n of names) {
      const v = o[n];
      if (typeof v === 'string') return v;
      if (Array.isArray(v)) return v.filter((x) => typeof x === 'string').join(', ');
    }
    return '';
  };
  const objects = (v: unknown): Array<Record<string, unknown>> =>
    Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object') : [];
  const root = (Array.isArray(value) ? { items: value } : value) as Record<string, unknown> | null;
  if (!root || typeof root !== 'object') return null;
  const items = [...objects(root.entities), ...objects(root.relationships), ...objects(root.relations), ...objects(root.items)];
  for (const o of items) {
    const source = field(o, 'source', 'src_id', 'source_entity');
    const target = field(o, 'target', 'tgt_id', 'target_entity');
    const fields =
      source || target
        ? ['relation', source, target, field(o, 'keywords', 'relationship_keywords'), field(o, 'description', 'relationship_description')]
        : [
            'entity',
            field(o, 'name', 'entity_name', 'entity'),
            field(o, 'type', 'entity_type'),
            field(o, 'description', 'entity_description'),
          ];
    out.push(parseRecord(fields.map(cleanField).join(FIELD_DELIMITER)) ?? 'malformed');
  }
  return out.length ? out : null;
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

function parseRecord(record: string): ParsedEntity | ParsedRelation | DropReason | null {
  const fields = record.split(FIELD_DELIMITER).map(cleanField);
  const kind = fields[0].toLowerCase();
  if (kind === 'entity') return entityOf(fields);
  if (kind === 'relation' || kind === 'relationship' || kind === 'relationships') {
    const [, a = '', b = ''] = fields;
    if (a && normalizeEntityId(a) && normalizeEntityId(a) === normalizeEntityId(b)) return 'self_loop';
    return relationOf(fields);
  }
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
