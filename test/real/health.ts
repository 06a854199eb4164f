import type { DocumentExtraction } from '../../src/domain/types';
import type { ExtractionHealth } from '../../src/records/extractions';

/**
 * What a document's extraction summary (docs/api.md §4.1) says of its status and warnings, checked against what
 * it reports, and the lane's table of records parsed, kept and dropped by reason.
 */

/** The documented status rule, from the summary alone (a failed extraction call is checked apart). */
export function statusByRule(e: DocumentExtraction): 'completed' | 'failed' {
  if (e.chunks === 0 || e.chunks_with_records > 0) return 'completed';
  const unusable =
    e.records_dropped > 0 ||
    e.truncated_chunks.length > 0 ||
    e.unmarked_chunks.length > 0 ||
    e.looping_chunks.length > 0 ||
    e.empty_outputs > 0;
  return unusable ? 'failed' : 'completed';
}

/** The warning codes the summary's figures call for (`no_entities` when the document stored none). */
export function expectedWarnings(e: DocumentExtraction, entityCount: number): string[] {
  const codes: Array<[string, boolean]> = [
    ['records_dropped', e.records_dropped > 0],
    ['output_truncated', e.truncated_chunks.length > 0],
    ['output_looped', e.looping_chunks.length > 0],
    ['completion_marker_missing', e.unmarked_chunks.length > 0],
    ['empty_output', e.empty_outputs > 0],
    ['no_entities', entityCount === 0],
  ];
  return codes.filter(([, on]) => on).map(([code]) => code);
}

/** "2 placeholder, 1 example": the drops as the document's error and warnings word them. */
export function dropsInWords(dropped: Record<string, number>): string[] {
  return Object.entries(dropped)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${n} ${reason.replace(/_/g, ' ')}`);
}

/** The fields every chunk's health carries, with their types. */
export function healthShape(): Record<keyof ExtractionHealth, unknown> {
  return {
    records_parsed: expect.any(Number),
    records_kept: expect.any(Number),
    dropped: expect.any(Object),
    finish_reason: expect.stringMatching(/^(stop|length|timeout)$/),
    completion_marker: expect.any(Boolean),
    looped: expect.any(Boolean),
    passes: expect.any(Number),
    empty_outputs: expect.any(Number),
    prompt_version: expect.any(Number),
    prompt_override: null,
  };
}

export interface RunFigures {
  run: string;
  status: string;
  chunks: number;
  msPerChunk: number;
  queries: string[];
  extraction: DocumentExtraction | null;
  entities: number;
  relationships: number;
  finishReasons: string[];
}

const REASONS = ['placeholder', 'example', 'not_in_text', 'malformed', 'self_loop'];

/** One markdown table of every run: status, timings, records parsed, kept and dropped by reason. */
export function figuresTable(rows: RunFigures[]): string[] {
  const head = ['run', 'status', 'ms per chunk', 'queries (ms)', 'parsed', 'kept', ...REASONS.map((r) => `dropped ${r}`)];
  const lines = [`| ${head.join(' | ')} | stored | extraction calls (finish, tokens in→out) |`, `|${' --- |'.repeat(head.length + 2)}`];
  for (const r of rows) {
    const e = r.extraction;
    const cells = [
      r.run,
      r.status,
      String(r.msPerChunk),
      r.queries.join(', ') || '-',
      String(e?.records_parsed ?? '-'),
      String(e?.records_kept ?? '-'),
      ...REASONS.map((reason) => String(e?.dropped[reason] ?? 0)),
      `${r.entities} entities, ${r.relationships} relationships`,
      r.finishReasons.join(' ') || '-',
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines;
}
