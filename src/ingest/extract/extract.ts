import type { DropCounts, ExtractionHealth } from '../../records/extractions';
import type { Completion, FinishReason, LlmProvider, TokenUsage } from '../../llm/ports';
import { GroundingText, groundRecords } from './grounding';
import { countDrop, ExtractionSet, type ParsedEntity, type ParsedRelation, parseExtraction } from './parser';
import { EXTRACTION_PROMPT_VERSION, type ExtractionPromptOptions, extractionPrompt, gleaningPrompt } from './prompt';

/**
 * One chunk's extraction: a first pass, then up to `maxGleaning` passes asking only for what was missed,
 * stopping at the first pass that adds nothing new (docs/architecture.md §5.3). Only grounded records are kept
 * (./grounding.ts); what each pass read, kept and dropped is the chunk's extraction health.
 */

export interface ExtractOptions extends ExtractionPromptOptions {
  maxGleaning: number;
  enableGleaning: boolean;
  signal?: AbortSignal;
}

export interface ChunkExtraction {
  entities: ParsedEntity[];
  relations: ParsedRelation[];
  raw_outputs: string[];
  dropped_records: number;
  health: ExtractionHealth;
  llm_calls: number;
  usage: TokenUsage;
  /** Why each pass's generation ended, for providers that say (openai, ollama); `timeout` and `repetition` mean a cut output. */
  finish_reasons?: FinishReason[];
}

/** Output cap per pass; extraction of a 1200-token chunk stays far below it. */
export const MAX_OUTPUT_TOKENS = 4096;
/** A record line written this many times in one pass: the model is looping. */
const LOOP_REPEATS = 3;

export async function extractChunk(llm: LlmProvider, chunk: { content: string }, options: ExtractOptions): Promise<ChunkExtraction> {
  const { signal } = options;
  const grounding = new GroundingText(chunk.content);
  const records = new ExtractionSet();
  const outputs: string[] = [];
  const usage: TokenUsage = { input_tokens: 0, output_tokens: 0 };
  const drops: DropCounts = {};
  const health: ExtractionHealth = {
    records_parsed: 0,
    records_kept: 0,
    dropped: drops,
    finish_reason: 'stop',
    completion_marker: true,
    looped: false,
    passes: 0,
    empty_outputs: 0,
    prompt_version: EXTRACTION_PROMPT_VERSION,
    prompt_override: options.override?.id ?? null,
  };
  const finishReasons: FinishReason[] = [];
  let calls = 0;
  /** One pass: its output read, grounded and added; how many records were new. */
  const take = (completion: Completion): number => {
    outputs.push(completion.text);
    if (!completion.cached) calls++;
    usage.input_tokens += completion.usage.input_tokens;
    usage.output_tokens += completion.usage.output_tokens;
    const parsed = parseExtraction(completion.text);
    for (const [reason, n] of Object.entries(parsed.dropped_by_reason)) countDrop(drops, reason as keyof DropCounts, n);
    const grounded = groundRecords(parsed, grounding, drops);
    health.passes++;
    health.records_parsed += parsed.records;
    if (!completion.text.trim()) health.empty_outputs++;
    if (!parsed.completed) health.completion_marker = false;
    if (completion.finish_reason) finishReasons.push(completion.finish_reason);
    if (completion.finish_reason === 'timeout') health.finish_reason = 'timeout';
    else if (cutAtLimit(completion)) health.finish_reason = 'length';
    if (completion.finish_reason === 'repetition' || loops(completion.text)) health.looped = true;
    return records.addAll(grounded);
  };

  take(
    await llm.complete(extractionPrompt(chunk.content, options), { task: 'extract', temperature: 0, maxTokens: MAX_OUTPUT_TOKENS, signal }),
  );
  const passes = options.enableGleaning ? Math.max(0, options.maxGleaning) : 0;
  for (let pass = 0; pass < passes; pass++) {
    const more = await llm.complete(gleaningPrompt(chunk.content, outputs, options), {
      task: 'glean',
      temperature: 0,
      maxTokens: MAX_OUTPUT_TOKENS,
      signal,
    });
    if (take(more) === 0) break;
  }
  const result = records.result();
  health.records_kept = result.entities.length + result.relations.length;
  const dropped = Object.values(drops).reduce((a, b) => a + b, 0);
  return { ...result, raw_outputs: outputs, dropped_records: dropped, health, llm_calls: calls, usage, finish_reasons: finishReasons };
}

/** The provider said so, or (when it says nothing) the output filled the cap. */
function cutAtLimit(completion: Completion): boolean {
  if (completion.finish_reason) return completion.finish_reason === 'length';
  return completion.usage.output_tokens >= MAX_OUTPUT_TOKENS;
}

function loops(text: string): boolean {
  const seen = new Map<string, number>();
  for (const line of text.split('\n')) {
    const key = line.trim();
    if (key.length < 8) continue;
    const n = (seen.get(key) ?? 0) + 1;
    if (n >= LOOP_REPEATS) return true;
    seen.set(key, n);
  }
  return false;
}
