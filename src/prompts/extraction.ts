import type { ChatMessage } from '../llm/ports';
import type { PromptOverride } from './overrides';
import { COMPLETION_MARKER, FIELD_DELIMITER } from './record-format';

/**
 * Extraction and gleaning prompts (docs/architecture.md §5.3). The expected output is the record format of src/prompts/record-format.ts;
 * the text to work on follows a line `---TEXT---`. Bump the version when the wording or format changes:
 * cached extractions of an older version are not reused.
 */

export const EXTRACTION_PROMPT_VERSION = 2;
export const TEXT_MARKER = '---TEXT---';

export const DEFAULT_ENTITY_TYPES = [
  'PERSON',
  'ORGANIZATION',
  'LOCATION',
  'EVENT',
  'CONCEPT',
  'TECHNOLOGY',
  'PRODUCT',
  'METHOD',
  'ARTIFACT',
];

export interface ExtractionPromptOptions {
  entityTypes?: string[];
  /** A file's instructions in place of the built-in system message (./overrides.ts). */
  override?: PromptOverride | null;
}

const D = FIELD_DELIMITER;

const SYSTEM = `You are a knowledge-graph extraction engine. You read a text and list the entities it names and the relationships between them, as plain-text records, one record per line:

entity${D}NAME${D}TYPE${D}DESCRIPTION
relation${D}SOURCE${D}TARGET${D}KEYWORDS${D}DESCRIPTION

- NAME: the entity's name as written in the text, in its most complete form; use the same name every time.
- TYPE: one of the entity types given; the closest one when none fits exactly.
- DESCRIPTION: one or two sentences, on one line, saying what the text tells about the entity or relationship. Only facts from the text.
- SOURCE and TARGET: names of entities you listed. A relationship joins two different entities.
- KEYWORDS: comma-separated words for the nature of the relationship, the main one first (e.g. "works for, employment").
- Only entities the text itself names, written as the text writes them. Never copy the example below, and never write the words NAME, TYPE, SOURCE or TARGET themselves: replace them.
- Never use the sequence ${D} inside a field. No other text, no numbering, no quotes around fields.
- After the last record, write ${COMPLETION_MARKER} on its own line.`;

/** The names of the example: a record naming one of them is copied from the prompt unless the text names it. */
export const EXAMPLE_NAMES = ['Marie Curie', 'University of Paris', 'Radioactivity'];

/** The format's field names: a record that holds them as names echoes the prompt. */
export const PLACEHOLDER_NAMES = ['NAME', 'TYPE', 'DESCRIPTION', 'SOURCE', 'TARGET', 'KEYWORDS', 'ENTITY', 'RELATION', 'ENTITY_NAME'];

const EXAMPLE = [
  `entity${D}Marie Curie${D}PERSON${D}Marie Curie was a physicist who researched radioactivity at the University of Paris.`,
  `entity${D}University of Paris${D}ORGANIZATION${D}The University of Paris is where Marie Curie carried out her research.`,
  `entity${D}Radioactivity${D}CONCEPT${D}Radioactivity is the phenomenon Marie Curie studied.`,
  `relation${D}Marie Curie${D}University of Paris${D}works at, research${D}Marie Curie researched at the University of Paris.`,
  `relation${D}Marie Curie${D}Radioactivity${D}studies, discovery${D}Marie Curie researched radioactivity.`,
  COMPLETION_MARKER,
].join('\n');

export function extractionPrompt(chunkText: string, options: ExtractionPromptOptions = {}): ChatMessage[] {
  const types = (options.entityTypes?.length ? options.entityTypes : DEFAULT_ENTITY_TYPES).join(', ');
  const user = [
    `Entity types: ${types}`,
    '',
    'Example output for the text "Marie Curie researched radioactivity at the University of Paris.":',
    EXAMPLE,
    '',
    'Extract every entity of the given types and every relationship between them from the text below.',
    TEXT_MARKER,
    chunkText,
  ].join('\n');
  return [
    { role: 'system', content: options.override?.text ?? SYSTEM },
    { role: 'user', content: user },
  ];
}

export const GLEANING_INSTRUCTION = `Some entities and relationships were missed in the last extraction. Add only the new ones, in the same format, one record per line; do not repeat records already given. End with ${COMPLETION_MARKER}.`;

/** A further pass over the same text: the conversation so far, then a request for what was missed. */
export function gleaningPrompt(chunkText: string, previousOutputs: string[], options: ExtractionPromptOptions = {}): ChatMessage[] {
  return [
    ...extractionPrompt(chunkText, options),
    { role: 'assistant', content: previousOutputs.join('\n') },
    { role: 'user', content: GLEANING_INSTRUCTION },
  ];
}
