import { ANSWER_PROMPT_VERSION } from './answer';
import { COMMUNITY_REPORT_PROMPT_VERSION } from './community-report';
import { EXTRACTION_PROMPT_VERSION } from './extraction';
import { KEYWORDS_PROMPT_VERSION } from './keywords';
import { RESOLUTION_PROMPT_VERSION } from './entity-resolution';

/**
 * The prompts the service sends, one module each in this folder, each with its version: bump a prompt's version
 * when its wording or format changes. The versions are recorded where a prompt's output is kept: every chunk's
 * extraction (and the document's extraction summary), every answer (`prompt_version`), every community report.
 */
export const PROMPT_VERSIONS = {
  extraction: EXTRACTION_PROMPT_VERSION,
  keywords: KEYWORDS_PROMPT_VERSION,
  answer: ANSWER_PROMPT_VERSION,
  community_report: COMMUNITY_REPORT_PROMPT_VERSION,
  entity_resolution: RESOLUTION_PROMPT_VERSION,
} as const;
