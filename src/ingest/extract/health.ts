import type { ChunkRecord, DocumentExtraction, DocumentWarning } from '../../domain/types';
import type { CachedExtraction, ExtractionHealth } from '../../records/extractions';

/**
 * A document's extraction health, from its chunks' (docs/api.md §4.1 "Extraction health"), and the rule that says
 * whether the model failed the document:
 *
 * - `failed` when some chunk's extraction call failed (as before), or when no chunk yielded a grounded record and
 *   the model did not simply answer "nothing here" (a well-formed output with no records and the completion
 *   marker): it echoed the prompt, copied the example, wrote prose, refused, wrote nothing, or was cut off.
 * - else `completed`, with `warnings` for what a user should know: records dropped, output cut at the limit or
 *   looping, a missing completion marker, empty outputs, no entities at all.
 */

const LISTED = 50;

export function summariseExtraction(
  chunks: ChunkRecord[],
  extractions: ReadonlyMap<string, CachedExtraction>,
  timedOut: ReadonlySet<string> = new Set(),
): DocumentExtraction {
  const summary: DocumentExtraction = {
    chunks: chunks.length,
    chunks_with_records: 0,
    records_parsed: 0,
    records_kept: 0,
    records_dropped: 0,
    dropped: {},
    truncated_chunks: [],
    unmarked_chunks: [],
    looping_chunks: [],
    timed_out_chunks: [],
    passes: 0,
    empty_outputs: 0,
    prompt_version: null,
    prompt_override: null,
    warnings: [],
  };
  const list = (into: number[], index: number) => {
    if (into.length < LISTED) into.push(index);
  };
  for (const chunk of chunks) {
    if (timedOut.has(chunk.id)) list(summary.timed_out_chunks, chunk.index);
    const extraction = extractions.get(chunk.id);
    if (!extraction) continue;
    const kept = extraction.entities.length + extraction.relations.length;
    if (kept > 0) summary.chunks_with_records++;
    const health: ExtractionHealth | undefined = extraction.health;
    if (!health) {
      // Written before health was recorded: what it kept is all that is known.
      summary.records_parsed += kept + extraction.dropped_records;
      summary.records_kept += kept;
      continue;
    }
    summary.records_parsed += health.records_parsed;
    summary.records_kept += health.records_kept;
    for (const [reason, n] of Object.entries(health.dropped)) summary.dropped[reason] = (summary.dropped[reason] ?? 0) + (n ?? 0);
    if (health.finish_reason === 'length') list(summary.truncated_chunks, chunk.index);
    if (!health.completion_marker) list(summary.unmarked_chunks, chunk.index);
    if (health.looped) list(summary.looping_chunks, chunk.index);
    summary.passes += health.passes;
    summary.empty_outputs += health.empty_outputs;
    summary.prompt_version = health.prompt_version;
    summary.prompt_override = health.prompt_override ?? null;
  }
  summary.records_dropped = Object.values(summary.dropped).reduce((a, b) => a + b, 0);
  summary.warnings = warningsOf(summary, extractions);
  return summary;
}

function warningsOf(s: DocumentExtraction, extractions: ReadonlyMap<string, CachedExtraction>): DocumentWarning[] {
  const out: DocumentWarning[] = [];
  const chunks = (indexes: number[]) => `chunk${indexes.length === 1 ? '' : 's'} ${indexes.join(', ')}`;
  if (s.records_dropped > 0) {
    const reasons = Object.entries(s.dropped)
      .map(([reason, n]) => `${n} ${reason.replace(/_/g, ' ')}`)
      .join(', ');
    out.push({
      code: 'records_dropped',
      message: `${s.records_dropped} of ${s.records_parsed} records the model wrote were dropped (${reasons})`,
    });
  }
  if (s.truncated_chunks.length)
    out.push({ code: 'output_truncated', message: `the model's output was cut at the output limit in ${chunks(s.truncated_chunks)}` });
  if (s.looping_chunks.length) out.push({ code: 'output_looped', message: `the model repeated itself in ${chunks(s.looping_chunks)}` });
  if (s.unmarked_chunks.length)
    out.push({
      code: 'completion_marker_missing',
      message: `the model's output did not end with the completion marker in ${chunks(s.unmarked_chunks)}`,
    });
  if (s.empty_outputs > 0) out.push({ code: 'empty_output', message: `the model wrote nothing in ${s.empty_outputs} extraction passes` });
  const entities = [...extractions.values()].reduce((n, e) => n + e.entities.length, 0);
  if (s.chunks > 0 && entities === 0) out.push({ code: 'no_entities', message: 'no entity was extracted from the document' });
  return out;
}

/**
 * Why the model failed the document, or null: no chunk yielded a grounded record, and some chunk's output was
 * not a well-formed "nothing here".
 */
export function extractionFailure(s: DocumentExtraction): string | null {
  if (s.chunks === 0 || s.chunks_with_records > 0) return null;
  const malformed =
    s.records_dropped > 0 ||
    s.truncated_chunks.length > 0 ||
    s.unmarked_chunks.length > 0 ||
    s.empty_outputs > 0 ||
    s.looping_chunks.length > 0;
  if (!malformed) return null;
  const problems = s.warnings.filter((w) => w.code !== 'no_entities').map((w) => w.message);
  return `the model's output yielded no record grounded in the text: ${problems.join('; ')}`;
}
