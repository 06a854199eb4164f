import type { LlmCache } from '../../llm/cache/responses';
import type { LlmProvider, TokenUsage } from '../../llm/ports';
import type { IngestDeps } from '../deps';
import { type SummarySubject, summaryPrompt } from './summary-prompt';
import { packByWeight } from '../../domain/pack';
import { countTokens, tokenEncoder } from '../../llm/tokens';
import { severalDistinct } from '../extract/describe';
import { mapInSlices, TimeSlicer } from '../../domain/turns';
import { distinctInSlices } from './evidence';

/**
 * Descriptions from fragments: joined as they are, or, past the fragment or token threshold and when
 * LLM summarisation is on, written by the LLM (map-reduce when the fragments do not fit in one call).
 */

export interface SummaryThresholds {
  /** Fragments (count) above which a summary is written. */
  fragmentThreshold: number;
  /** Tokens of the joined fragments above which a summary is written. */
  tokenThreshold: number;
}

export interface SummaryPolicy extends SummaryThresholds {
  /** Needed when `enabled`. */
  llm?: LlmProvider;
  /** The runtime's LLM response cache, which summary calls answer from first. */
  cache?: LlmCache;
  enabled: boolean;
  /** Thresholds of relationships when they differ from the entities' (the fields above). */
  relationship?: SummaryThresholds;
  /** Input budget of one summary call, in tokens. */
  maxInputTokens?: number;
  signal?: AbortSignal;
}

export interface Described {
  description: string;
  summarised: boolean;
  llm_calls: number;
  usage: TokenUsage;
}

const DEFAULT_MAX_INPUT_TOKENS = 4000;
const SUMMARY_MAX_OUTPUT_TOKENS = 500;
const SUMMARY_MAX_WORDS = 200;
const MAX_ROUNDS = 4;

export const FRAGMENT_SEPARATOR = '\n';

export function joinFragments(fragments: string[]): string {
  return fragments.join(FRAGMENT_SEPARATOR);
}

/** The policy with the thresholds of one record kind. */
export function policyFor(policy: SummaryPolicy, kind: 'entity' | 'relationship'): SummaryPolicy {
  return kind === 'relationship' && policy.relationship ? { ...policy, ...policy.relationship } : policy;
}

export function needsSummary(fragments: string[], policy: SummaryPolicy): boolean {
  if (!policy.enabled || !policy.llm || !severalDistinct(fragments)) return false;
  return fragments.length > policy.fragmentThreshold || countTokens(joinFragments(fragments)) > policy.tokenThreshold;
}

/**
 * One LLM-written description of the fragments. Duplicates (up to case, spacing and punctuation) are folded
 * first and never reach the LLM; a single distinct fragment is its own description.
 */
export async function summarizeFragments(subject: SummarySubject, all: string[], policy: SummaryPolicy): Promise<Described> {
  const llm = policy.llm;
  if (!llm) throw new Error('no LLM to write the summary');
  const usage = { input_tokens: 0, output_tokens: 0 };
  // A record named in thousands of chunks has thousands of fragments: folding and counting them yields the loop.
  const slicer = new TimeSlicer();
  const fragments = await distinctInSlices(all, slicer, FOLD_BATCH);
  if (fragments.length <= 1) return { description: fragments[0] ?? '', summarised: false, llm_calls: 0, usage };
  const budget = Math.max(64, policy.maxInputTokens ?? DEFAULT_MAX_INPUT_TOKENS);
  let calls = 0;
  const call = async (parts: string[]): Promise<string> => {
    const out = await llm.complete(summaryPrompt(subject, parts, SUMMARY_MAX_WORDS), {
      task: 'summarize',
      temperature: 0,
      maxTokens: SUMMARY_MAX_OUTPUT_TOKENS,
      signal: policy.signal,
    });
    if (!out.cached) calls++;
    usage.input_tokens += out.usage.input_tokens;
    usage.output_tokens += out.usage.output_tokens;
    return out.text.trim() || joinFragments(parts);
  };

  let current = await mapInSlices(fragments, (f) => truncateTokens(f, budget), slicer);
  for (let round = 0; round < MAX_ROUNDS && countTokens(joinFragments(current)) > budget; round++) {
    // Map: summarise groups that fit one call; the group summaries are reduced in the next round.
    current = await Promise.all(
      packGroups(current, budget).map((group) => (compressible(group) ? call(group) : Promise.resolve(group[0]))),
    );
  }
  const description = await call(fitBudget(current, budget));
  return { description, summarised: true, llm_calls: calls, usage };
}

/** Fragments folded between two turns of the event loop. */
const FOLD_BATCH = 256;

/** Consecutive fragments grouped so that each group's joined text stays within the budget. */
function packGroups(fragments: string[], budget: number): string[][] {
  return packByWeight(fragments, (f) => countTokens(f) + 1, budget);
}

/** A lone short fragment is kept as it is: a summary would not make it shorter. */
function compressible(group: string[]): boolean {
  return group.length > 1 || countTokens(group[0]) > SUMMARY_MAX_OUTPUT_TOKENS;
}

/** The leading fragments that fit the budget (after MAX_ROUNDS the rest is dropped rather than overflow). */
function fitBudget(fragments: string[], budget: number): string[] {
  return packGroups(fragments, budget)[0] ?? [];
}

function truncateTokens(text: string, budget: number): string {
  if (countTokens(text) <= budget) return text;
  const enc = tokenEncoder();
  return enc.decode(enc.encode(text).slice(0, budget));
}

/** Summaries by the default LLM; without a usable one, descriptions are joined. */
export function summaryPolicy(
  deps: Pick<IngestDeps, 'config' | 'providers' | 'llmCache'>,
  enabled: boolean,
  signal?: AbortSignal,
): SummaryPolicy {
  let llm: LlmProvider | undefined;
  try {
    llm = deps.providers.llm();
  } catch {
    llm = undefined;
  }
  return {
    llm,
    cache: deps.llmCache,
    enabled: enabled && llm !== undefined,
    fragmentThreshold: deps.config.ingest.summaryFragmentThreshold,
    tokenThreshold: deps.config.ingest.summaryTokenThreshold,
    relationship: {
      fragmentThreshold: deps.config.ingest.summaryRelationshipFragmentThreshold,
      tokenThreshold: deps.config.ingest.summaryRelationshipTokenThreshold,
    },
    signal,
  };
}
