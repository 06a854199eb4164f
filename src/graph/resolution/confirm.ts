import { createHash } from 'node:crypto';
import type { EntityRecord, Scope } from '../../domain/types';
import type { TokenUsage } from '../../llm/ports';
import {
  parseResolutionVerdicts,
  RESOLUTION_BATCH,
  RESOLUTION_PROMPT_VERSION,
  resolutionLine,
  resolutionMaxTokens,
  resolutionPrompt,
  type ResolutionSubject,
} from '../../prompts/entity-resolution';
import type { GraphDeps } from '../deps';

/**
 * The LLM's confirmation of candidate pairs in the review band: RESOLUTION_BATCH pairs a call (task `resolve`),
 * the calls of a run at once. A pair the model judged before, with the same records, takes its earlier verdict
 * (KV namespace `entity_verdicts`, keyed by provider, model, prompt version and the two records as the prompt
 * shows them) and is not asked again. A pair the answer gives no clear verdict for is not merged, and its
 * non-answer is not kept.
 */

export const VERDICT_NAMESPACE = 'entity_verdicts';

interface Verdict {
  same: boolean;
}

export async function confirmPairs(
  deps: GraphDeps,
  scope: Scope,
  pairs: Array<[EntityRecord, EntityRecord]>,
  run: { llm_calls: number; usage: TokenUsage },
): Promise<boolean[]> {
  const provider = deps.providers.llm();
  const llm = deps.llmCache.wrap(provider, deps.stores.kv, scope);
  const subjects = pairs.map(([a, b]): [ResolutionSubject, ResolutionSubject] => [subject(a), subject(b)]);
  const keys = subjects.map(([a, b]) => verdictKey(provider.provider, provider.model, a, b));
  const known = await deps.stores.kv.getMany<Verdict>(scope, VERDICT_NAMESPACE, [...new Set(keys)]);
  const verdicts: Array<boolean | null> = keys.map((k) => known.get(k)?.same ?? null);
  const open = keys.flatMap((k, i) => (known.has(k) ? [] : [i]));
  const batches: number[][] = [];
  for (let i = 0; i < open.length; i += RESOLUTION_BATCH) batches.push(open.slice(i, i + RESOLUTION_BATCH));
  await Promise.all(
    batches.map(async (batch) => {
      const answer = await llm.complete(resolutionPrompt(batch.map((i) => subjects[i])), {
        task: 'resolve',
        temperature: 0,
        maxTokens: resolutionMaxTokens(batch.length),
      });
      if (!answer.cached) run.llm_calls++;
      run.usage.input_tokens += answer.usage.input_tokens;
      run.usage.output_tokens += answer.usage.output_tokens;
      const read = parseResolutionVerdicts(answer.text, batch.length);
      batch.forEach((i, j) => (verdicts[i] = read[j]));
      const kept = batch.flatMap((i, j): Array<[string, Verdict]> => (read[j] === null ? [] : [[keys[i], { same: read[j] as boolean }]]));
      if (kept.length) await deps.stores.kv.setMany(scope, VERDICT_NAMESPACE, kept);
    }),
  );
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
