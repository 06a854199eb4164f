import { currentParts, type Draft, type Summary } from './drafts';
import { fragmentKey, type RecordState } from './record-state';
import { FRAGMENT_SEPARATOR, joinFragments, needsSummary, type SummaryPolicy } from './summary';

/**
 * How a record's description follows its fragments (docs/architecture.md §5.5). Below the fragment and token thresholds,
 * or with LLM summaries off, it is the fragments joined. Past them an LLM writes a summary (outside the
 * entity lock, ./summary-stage.ts), which then heads the description, followed by the newest fragments
 * merged since that fit a bounded tail. A summary is rewritten only once the fragments merged since are at
 * least as many as it covers (and the threshold): a record named by n documents is summarised O(log n)
 * times, not once every few documents.
 */

/** Characters per token, roughly: bounds the tail of fragments after a summary without tokenising them. */
const CHARS_PER_TOKEN = 4;

/** Sets the draft's description and the summary part of its merge state. */
export function describeDraft(draft: Draft<{ description: string }>, policy: Pick<SummaryPolicy, 'tokenThreshold'>): void {
  const { summary, fragments, newer } = draft;
  draft.state.summary = summary ? { text: summary.text, covered: summary.covered, newer } : null;
  draft.record.description = summary ? render(summary, fragments, policy) : joinFragments(fragments);
}

/**
 * A record whose fragments joined are those of its stored description in another order (a rebuild reads them in chunk
 * order, while they were joined in the order documents and merges brought them) keeps its description as stored: a
 * merge that does not change what a record says does not rewrite it, re-embed it or change its community's report.
 */
export function keepDescription(draft: Draft<{ description: string }>, old: { description: string } | undefined): void {
  const text = draft.record.description;
  if (!old || draft.summary || old.description === text || old.description.length !== text.length) return;
  const sorted = (joined: string) => joined.split(FRAGMENT_SEPARATOR).sort().join(FRAGMENT_SEPARATOR);
  if (sorted(old.description) === sorted(text)) draft.record.description = old.description;
}

/** Whether the draft's description is due for a (new) LLM summary. */
export function summaryDue(draft: Pick<Draft<{ description: string }>, 'summary' | 'fragments' | 'newer'>, policy: SummaryPolicy): boolean {
  if (!policy.enabled || !policy.llm) return false;
  if (!draft.summary) return needsSummary(draft.fragments, policy);
  return draft.newer.length >= Math.max(policy.fragmentThreshold, draft.summary.covered.length);
}

/**
 * The draft cut to the fewest of its fragments (oldest first) with which a summary is due, but no fewer than
 * `atLeast`, or null when it is not due. Due-ness only grows with the prefix, so the cut is found by bisection.
 */
export function duePrefix<D extends Pick<Draft<{ description: string }>, 'summary' | 'fragments' | 'newer'>>(
  draft: D,
  policy: SummaryPolicy,
  atLeast = 0,
): D | null {
  const cut = (n: number): D => ({ ...draft, fragments: draft.fragments.slice(0, n), newer: draft.newer.slice(0, n) });
  if (!summaryDue(draft, policy)) return null;
  if (atLeast >= draft.fragments.length) return draft;
  let low = 0;
  let high = draft.fragments.length;
  while (high - low > 1) {
    const mid = (low + high) >> 1;
    if (summaryDue(cut(mid), policy)) high = mid;
    else low = mid;
  }
  const n = Math.min(Math.max(high, atLeast), draft.fragments.length);
  return n === draft.fragments.length ? draft : cut(n);
}

/**
 * The description (and summary state) once `summary` replaces the current one, or null when it no longer
 * applies: a fragment it covers is gone (a source was removed meanwhile), or a summary covering fragments
 * it does not is already there (written concurrently from a later state).
 */
export function withSummary(
  description: string,
  state: RecordState,
  summary: Summary,
  policy: Pick<SummaryPolicy, 'tokenThreshold'>,
): { description: string; summary: NonNullable<RecordState['summary']> } | null {
  const current = currentParts(description, state);
  const covered = new Set(summary.covered);
  if (!summary.covered.every((k) => current.known.has(k))) return null;
  if (current.summary && (current.summary.covered.length >= covered.size || !current.summary.covered.every((k) => covered.has(k))))
    return null;
  const newer = current.newer.filter((k) => !covered.has(k));
  const shown = current.shown.filter((f) => !covered.has(fragmentKey(f)));
  return { description: render(summary, shown, policy), summary: { text: summary.text, covered: summary.covered, newer } };
}

/** The summary, then the newest fragments that fit the tail (at least the newest one). */
function render(summary: Summary, fragments: string[], policy: Pick<SummaryPolicy, 'tokenThreshold'>): string {
  const budget = policy.tokenThreshold * CHARS_PER_TOKEN;
  let start = fragments.length;
  let used = 0;
  while (start > 0 && (start === fragments.length || used + fragments[start - 1].length + 1 <= budget)) {
    used += fragments[start - 1].length + 1;
    start--;
  }
  return joinFragments([summary.text, ...fragments.slice(start)]);
}
