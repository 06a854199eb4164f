import { isAbortError } from '../llm/abort';
import type { TokenUsage } from '../llm/ports';
import type { Draft } from './drafts';
import { joinFragments, needsSummary, summarizeFragments, type SummaryPolicy } from './summary';

/**
 * Decides the descriptions of a batch of drafts: the parts joined, or, when they pass the fragment or token
 * threshold and LLM summarisation is on, one LLM summary of them. As in LightRAG a summary then counts as
 * one part: later fragments are appended until the threshold is passed again, so a record seen in many
 * documents costs one call per few new fragments, never one over its whole history per merge.
 * A summary that fails falls back to the joined parts.
 */

export interface DescribeOutcome {
  llm_calls: number;
  usage: TokenUsage;
  failures: string[];
}

export async function describeDrafts(drafts: Array<Draft<{ description: string }>>, policy: SummaryPolicy): Promise<DescribeOutcome> {
  const outcome: DescribeOutcome = { llm_calls: 0, usage: { input_tokens: 0, output_tokens: 0 }, failures: [] };
  await Promise.all(
    drafts.map(async (draft) => {
      draft.record.description = joinFragments(draft.parts);
      if (!needsSummary(draft.parts, policy)) return;
      try {
        const summary = await summarizeFragments(draft.subject, draft.parts, policy);
        outcome.llm_calls += summary.llm_calls;
        outcome.usage.input_tokens += summary.usage.input_tokens;
        outcome.usage.output_tokens += summary.usage.output_tokens;
        // One line: descriptions are parts joined by newlines.
        const text = summary.description.replace(/\s+/g, ' ').trim();
        draft.record.description = text;
        draft.state.summary = { text, covered: draft.keys };
      } catch (err) {
        if (isAbortError(err) || policy.signal?.aborted) throw err;
        outcome.failures.push(`${draft.key}: ${(err as Error).message}`);
      }
    }),
  );
  return outcome;
}
