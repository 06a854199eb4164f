import type { FinishReason, LlmProvider, TokenUsage } from '../../llm/ports';
import { ExtractionSet, type ParsedEntity, type ParsedRelation, parseExtraction } from './parser';
import { type ExtractionPromptOptions, extractionPrompt, gleaningPrompt } from './prompt';

/**
 * One chunk's extraction: a first pass, then up to `maxGleaning` passes asking only for what was missed,
 * stopping at the first pass that adds nothing new (docs/architecture.md §5.3).
 */

export interface ExtractOptions extends ExtractionPromptOptions {
  maxGleaning: number;
  enableGleaning: boolean;
  signal?: AbortSignal;
  /** Told what each pass found, as soon as it is parsed. */
  onPass?: (found: { entities: ParsedEntity[]; relations: ParsedRelation[] }) => void;
}

export interface ChunkExtraction {
  entities: ParsedEntity[];
  relations: ParsedRelation[];
  raw_outputs: string[];
  dropped_records: number;
  llm_calls: number;
  usage: TokenUsage;
  /** Why each pass's generation ended, for providers that say (openai, ollama); `timeout` and `repetition` mean a cut output. */
  finish_reasons?: FinishReason[];
}

/** Output cap per pass; extraction of a 1200-token chunk stays far below it. */
const MAX_OUTPUT_TOKENS = 4096;

export async function extractChunk(llm: LlmProvider, chunk: { content: string }, options: ExtractOptions): Promise<ChunkExtraction> {
  const { signal } = options;
  const first = await llm.complete(extractionPrompt(chunk.content, options), {
    task: 'extract',
    temperature: 0,
    maxTokens: MAX_OUTPUT_TOKENS,
    signal,
  });
  const outputs = [first.text];
  const finishReasons: FinishReason[] = first.finish_reason ? [first.finish_reason] : [];
  const usage = { ...first.usage };
  let calls = first.cached ? 0 : 1;
  const parsed = parseExtraction(first.text);
  options.onPass?.(parsed);
  const records = new ExtractionSet();
  records.addAll(parsed);
  let dropped = parsed.dropped;

  const passes = options.enableGleaning ? Math.max(0, options.maxGleaning) : 0;
  for (let pass = 0; pass < passes; pass++) {
    const more = await llm.complete(gleaningPrompt(chunk.content, outputs, options), {
      task: 'glean',
      temperature: 0,
      maxTokens: MAX_OUTPUT_TOKENS,
      signal,
    });
    outputs.push(more.text);
    if (more.finish_reason) finishReasons.push(more.finish_reason);
    if (!more.cached) calls++;
    usage.input_tokens += more.usage.input_tokens;
    usage.output_tokens += more.usage.output_tokens;
    const gleaned = parseExtraction(more.text);
    options.onPass?.(gleaned);
    dropped += gleaned.dropped;
    if (records.addAll(gleaned) === 0) break;
  }
  return { ...records.result(), raw_outputs: outputs, dropped_records: dropped, llm_calls: calls, usage, finish_reasons: finishReasons };
}
