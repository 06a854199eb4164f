import type { CommunityRecord } from '../../domain/communities';
import type { ChunkRecord, EntityRecord, RelationshipRecord } from '../../domain/types';
import { memoText } from '../../domain/text-memo';

/**
 * The context section of the answer prompt, version 1. Chunks and entities carry `[n]` reference ids, the
 * same numbers as the `reference_id` of the sources, so an answer's citations point at sources.
 */

export const CONTEXT_FORMAT_VERSION = 1;

export function entityLine(entity: EntityRecord): string {
  return `${entity.name} (${entity.entity_type}): ${descriptionLine(entity.description)}`;
}

export function relationshipLine(r: RelationshipRecord): string {
  const keywords = r.keywords.length ? `; ${r.keywords.join(', ')}` : '';
  return `${r.source} -- ${r.target} (${r.relation_type}${keywords}): ${descriptionLine(r.description)}`;
}

export interface ChunkOrigin {
  title: string;
  file_path: string;
}

export function chunkHeading(chunk: ChunkRecord, origin: ChunkOrigin): string {
  const where = origin.file_path && origin.file_path !== origin.title ? `${origin.file_path}, ` : '';
  return `${origin.title || chunk.document_id} (${where}lines ${chunk.start_line}-${chunk.end_line})`;
}

export function communityBlock(c: CommunityRecord): string {
  const findings = c.findings.map((f) => `  - ${oneLine(f.summary)}${f.explanation ? `: ${oneLine(f.explanation)}` : ''}`);
  return [`## ${oneLine(c.title)} (community ${c.id}, ${c.size} entities, rank ${c.rank})`, oneLine(c.summary), ...findings].join('\n');
}

export interface ContextParts {
  /** Community reports (global part of the context); absent or empty when none were used. */
  communities?: CommunityRecord[];
  entities: Array<{ reference_id: number; record: EntityRecord }>;
  relationships: RelationshipRecord[];
  chunks: Array<{ reference_id: number; record: ChunkRecord; origin: ChunkOrigin }>;
}

/** '' when there is nothing: the answer prompt then says that no context was retrieved. */
export function formatContext(parts: ContextParts): string {
  const sections: string[] = [];
  if (parts.communities?.length) {
    sections.push(['-----Community reports (knowledge graph)-----', ...parts.communities.map(communityBlock)].join('\n'));
  }
  if (parts.entities.length) {
    sections.push(
      ['-----Entities (knowledge graph)-----', ...parts.entities.map((e) => `[${e.reference_id}] ${entityLine(e.record)}`)].join('\n'),
    );
  }
  if (parts.relationships.length) {
    sections.push(['-----Relationships (knowledge graph)-----', ...parts.relationships.map((r) => `- ${relationshipLine(r)}`)].join('\n'));
  }
  if (parts.chunks.length) {
    sections.push(
      [
        '-----Document chunks-----',
        ...parts.chunks.map((c) => `[${c.reference_id}] ${chunkHeading(c.record, c.origin)}\n${c.record.content.trim()}\n`),
      ].join('\n'),
    );
  }
  return sections.join('\n\n').trim();
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Whitespace that flattening would change: a run, a character other than the space, or at either end. */
const UNFLAT = /\s\s|[^\S ]|^\s|\s$/;

/**
 * Descriptions of the records a query selects recur from query to query: flattened once. One already on one line
 * is its own answer and is not remembered, so a description that changes with every upload leaves nothing behind.
 */
const flattened = memoText(oneLine, 500_000);
export function descriptionLine(text: string): string {
  return UNFLAT.test(text) ? flattened(text) : text;
}
