import { contentHash } from '../domain/ids';
import type { Scope } from '../domain/types';
import { isAbortError } from '../llm/abort';
import type { LlmProvider, TokenUsage } from '../llm/ports';
import type { KeyValueStore } from '../store/ports';
import { joinFragments, needsSummary, summarizeFragments, type SummaryPolicy } from './summary';
import { SUMMARY_PROMPT_VERSION, type SummarySubject } from './summary-prompt';

/**
 * Descriptions for a batch of rebuilt records. LLM summaries are kept per record (KV namespace `summaries`,
 * key `entity:<id>` or `relationship:<id>`) with the hash of their input, so rebuilding a record from the
 * same fragments never pays twice. A summary that fails falls back to the joined fragments.
 */

export const SUMMARY_NAMESPACE = 'summaries';

export interface DescriptionJob<R extends { description: string }> {
  key: string;
  subject: SummarySubject;
  fragments: string[];
  record: R;
}

interface CachedSummary {
  input_hash: string;
  description: string;
  llm_model: string;
  created_at: string;
}

export interface DescribeOutcome {
  llm_calls: number;
  usage: TokenUsage;
  /** Summaries that failed and fell back to the joined fragments. */
  failures: string[];
}

export async function describeAll(
  kv: KeyValueStore,
  scope: Scope,
  jobs: Array<DescriptionJob<{ description: string }>>,
  policy: SummaryPolicy,
): Promise<DescribeOutcome> {
  const outcome: DescribeOutcome = { llm_calls: 0, usage: { input_tokens: 0, output_tokens: 0 }, failures: [] };
  const pending: Array<DescriptionJob<{ description: string }>> = [];
  for (const job of jobs) {
    job.record.description = joinFragments(job.fragments);
    if (needsSummary(job.fragments, policy)) pending.push(job);
  }
  if (pending.length === 0) return outcome;
  const cached = await kv.getMany<CachedSummary>(scope, SUMMARY_NAMESPACE, pending.map((j) => j.key));
  await Promise.all(
    pending.map(async (job) => {
      const hash = inputHash(policy.llm, job.fragments);
      const hit = cached.get(job.key);
      if (hit?.input_hash === hash) {
        job.record.description = hit.description;
        return;
      }
      try {
        const summary = await summarizeFragments(job.subject, job.fragments, policy);
        outcome.llm_calls += summary.llm_calls;
        outcome.usage.input_tokens += summary.usage.input_tokens;
        outcome.usage.output_tokens += summary.usage.output_tokens;
        job.record.description = summary.description;
        const value: CachedSummary = { input_hash: hash, description: summary.description, llm_model: policy.llm.model, created_at: new Date().toISOString() };
        await kv.set(scope, SUMMARY_NAMESPACE, job.key, value);
      } catch (err) {
        if (isAbortError(err) || policy.signal?.aborted) throw err;
        outcome.failures.push(`${job.key}: ${(err as Error).message}`);
      }
    }),
  );
  return outcome;
}

export function deleteSummaries(kv: KeyValueStore, scope: Scope, keys: string[]): Promise<void> {
  return keys.length ? kv.delete(scope, SUMMARY_NAMESPACE, keys) : Promise.resolve();
}

function inputHash(llm: LlmProvider, fragments: string[]): string {
  return contentHash(`${SUMMARY_PROMPT_VERSION}\n${llm.provider}/${llm.model}\n${joinFragments(fragments)}`);
}
