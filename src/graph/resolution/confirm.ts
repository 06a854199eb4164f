import { createHash } from 'node:crypto';
import type { EntityRecord, Scope } from '../../domain/types';
import type { LlmProvider, TokenUsage } from '../../llm/ports';
import {
  parseResolutionVerdicts,
  RESOLUTION_BATCH,
  RESOLUTION_PROMPT_VERSION,
  type ResolutionPair,
  resolutionLine,
  resolutionMaxTokens,
  resolutionPrompt,
  type ResolutionSubject,
} from '../../prompts/entity-resolution';
import type { GraphDeps } from '../deps';

/**
 * The LLM's confirmation of candidate pairs in the review band: RESOLUTION_BATCH pairs a call (task `resolve`).
 * A pair the model judged before, with the same records, takes its earlier verdict (KV namespace
 * `entity_verdicts`, keyed by provider, model, prompt version and the two records as the prompt shows them) and
 * is not asked again. A pair the answer gives no clear verdict for is not merged, and its non-answer is not kept.
 *
 * Who asks is the caller's choice (`AskPairs`): by default the calls of a run go out at once; ingestion puts the
 * pairs of every document in flight of a workspace into shared calls (src/ingest/verdict-queue.ts).
 */

export const VERDICT_NAMESPACE = 'entity_verdicts';

interface Verdict {
  same: boolean;
}

/** The answer to some pairs: a verdict each (null: none given), and the calls and tokens charged to the asker. */
export interface PairAnswers {
  verdicts: Array<boolean | null>;
  calls: number;
  usage: TokenUsage;
}

/** Asks `llm` about `pairs`. */
export type AskPairs = (llm: LlmProvider, pairs: ResolutionPair[]) => Promise<PairAnswers>;

/** One batch of pairs asked in one call: its verdicts, and whether the call was made (not taken from the cache). */
export async function askBatch(
  llm: LlmProvider,
  pairs: ResolutionPair[],
): Promise<{ verdicts: Array<boolean | null>; made: boolean; usage: TokenUsage }> {
  const answer = await llm.complete(resolutionPrompt(pairs), {
    task: 'resolve',
    temperature: 0,
    maxTokens: resolutionMaxTokens(pairs.length),
  });
  return { verdicts: parseResolutionVerdicts(answer.text, pairs.length), made: !answer.cached, usage: answer.usage };
}

/** The pairs in batches of RESOLUTION_BATCH, the calls at once. */
export const askAtOnce: AskPairs = async (llm, pairs) => {
  const out: PairAnswers = { verdicts: [], calls: 0, usage: { input_tokens: 0, output_tokens: 0 } };
  const batches: ResolutionPair[][] = [];
  for (let i = 0; i < pairs.length; i += RESOLUTION_BATCH) batches.push(pairs.slice(i, i + RESOLUTION_BATCH));
  const answers = await Promise.all(batches.map((batch) => askBatch(llm, batch)));
  for (const answer of answers) {
    out.verdicts.push(...answer.verdicts);
    if (answer.made) out.calls++;
    out.usage.input_tokens += answer.usage.input_tokens;
    out.usage.output_tokens += answer.usage.output_tokens;
  }
  return out;
};

export async function confirmPairs(
  deps: GraphDeps,
  scope: Scope,
  pairs: Array<[EntityRecord, EntityRecord]>,
  run: { llm_calls: number; usage: TokenUsage },
  ask: AskPairs = askAtOnce,
): Promise<boolean[]> {
  const provider = deps.providers.llm();
  const llm = deps.llmCache.wrap(provider, deps.stores.kv, scope);
  const subjects = pairs.map(([a, b]): ResolutionPair => [subject(a), subject(b)]);
  const keys = subjects.map(([a, b]) => verdictKey(provider.provider, provider.model, a, b));
  const known = await deps.stores.kv.getMany<Verdict>(scope, VERDICT_NAMESPACE, [...new Set(keys)]);
  const verdicts: Array<boolean | null> = keys.map((k) => known.get(k)?.same ?? null);
  const open = keys.flatMap((k, i) => (known.has(k) ? [] : [i]));
  if (open.length === 0) return verdicts.map((v) => v === true);
  const answers = await ask(
    llm,
    open.map((i) => subjects[i]),
  );
  run.llm_calls += answers.calls;
  run.usage.input_tokens += answers.usage.input_tokens;
  run.usage.output_tokens += answers.usage.output_tokens;
  open.forEach((i, j) => (verdicts[i] = answers.verdicts[j]));
  const kept = open.flatMap((i, j): Array<[string, Verdict]> => {
    const same = answers.verdicts[j];
    return same === null ? [] : [[keys[i], { same }]];
  });
  if (kept.length) await deps.stores.kv.setMany(scope, VERDICT_NAMESPACE, kept);
  return verdicts.map((v) => v === true);
}

function subject(e: EntityRecord): ResolutionSubject {
  return { name: e.name, type: e.entity_type, description: e.description };
}

/** Either order of the pair finds the verdict. */
function verdictKey(provider: string, model: string, a: ResolutionSubject, b: ResolutionSubject): string {
  const records = [resolutionLine('', a), resolutionLine('', b)].sort();
  return createHash('sha256')
    .update(JSON.stringify([provider, model, RESOLUTION_PROMPT_VERSION, records]))
    .digest('base64url');
}
