import { createHash } from 'node:crypto';
import type { Scope } from '../domain/types';
import { isAbortError } from '../llm/abort';
import type { TokenUsage } from '../llm/ports';
import type { KeyValueStore } from '../store/ports';
import { joinFragments, needsSummary, summarizeFragments, type SummaryPolicy } from './summary';
import type { SummarySubject } from './summary-prompt';

/**
 * Descriptions for a batch of rebuilt records. An LLM summary is kept per record (KV namespace `summaries`,
 * key `entity:<id>` or `relationship:<id>`) with the fragments it covers. As in LightRAG, a summary then
 * counts as one fragment: new fragments are appended to it until the threshold is passed again, and only
 * then summarised with it, so a record seen in many documents costs one call per few new fragments rather
 * than one call over its whole history per merge. When fragments it covers disappear (a deletion), the
 * description is rebuilt from the remaining fragments alone. A summary that fails falls back to joining.
 */

export const SUMMARY_NAMESPACE = 'summaries';

export interface DescriptionJob<R extends { description: string }> {
  key: string;
  subject: SummarySubject;
  fragments: string[];
  record: R;
}

interface CachedSummary {
  /** Keys of the fragments the summary covers. */
  covered: string[];
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
  for (const job of jobs) job.record.description = joinFragments(job.fragments);
  if (!policy.enabled) return outcome;
  const cached = await kv.getMany<CachedSummary>(scope, SUMMARY_NAMESPACE, jobs.map((j) => j.key));
  const stale: string[] = [];
  await Promise.all(
    jobs.map(async (job) => {
      const keys = job.fragments.map(fragmentKey);
      const previous = cached.get(job.key);
      const present = new Set(keys);
      const extends_ = previous?.covered.every((k) => present.has(k)) ?? false;
      const covered = new Set(extends_ ? previous?.covered : []);
      const parts = [...(extends_ && previous ? [previous.description] : []), ...job.fragments.filter((_, i) => !covered.has(keys[i]))];
      if (!needsSummary(parts, policy)) {
        job.record.description = joinFragments(parts);
        if (previous && !extends_) stale.push(job.key);
        return;
      }
      try {
        const summary = await summarizeFragments(job.subject, parts, policy);
        outcome.llm_calls += summary.llm_calls;
        outcome.usage.input_tokens += summary.usage.input_tokens;
        outcome.usage.output_tokens += summary.usage.output_tokens;
        job.record.description = summary.description;
        const value: CachedSummary = { covered: keys, description: summary.description, llm_model: policy.llm.model, created_at: new Date().toISOString() };
        await kv.set(scope, SUMMARY_NAMESPACE, job.key, value);
      } catch (err) {
        if (isAbortError(err) || policy.signal?.aborted) throw err;
        outcome.failures.push(`${job.key}: ${(err as Error).message}`);
      }
    }),
  );
  await deleteSummaries(kv, scope, stale);
  return outcome;
}

export function deleteSummaries(kv: KeyValueStore, scope: Scope, keys: string[]): Promise<void> {
  return keys.length ? kv.delete(scope, SUMMARY_NAMESPACE, keys) : Promise.resolve();
}

function fragmentKey(fragment: string): string {
  return createHash('sha256').update(fragment.toLowerCase()).digest('base64url').slice(0, 16);
}
