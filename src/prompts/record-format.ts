/**
 * The record format the extraction prompt asks for, one record per line:
 *
 *   entity<|>NAME<|>TYPE<|>DESCRIPTION
 *   relation<|>SOURCE<|>TARGET<|>KEYWORDS<|>DESCRIPTION
 *   <|COMPLETE|>
 *
 * KEYWORDS is a comma-separated list; its first keyword names the relation type.
 * The mock provider writes exactly this format, so the real parser runs in every mode.
 */

export const FIELD_DELIMITER = '<|>';
export const COMPLETION_MARKER = '<|COMPLETE|>';

export interface ExtractedEntity {
  name: string;
  type: string;
  description: string;
}

export interface ExtractedRelation {
  source: string;
  target: string;
  keywords: string[];
  description: string;
}

export function formatEntityRecord(e: ExtractedEntity): string {
  return ['entity', e.name, e.type, e.description].join(FIELD_DELIMITER);
}

export function formatRelationRecord(r: ExtractedRelation): string {
  return ['relation', r.source, r.target, r.keywords.join(', '), r.description].join(FIELD_DELIMITER);
}
