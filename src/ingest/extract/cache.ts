import { contentHash } from '../../domain/ids';
import type { Scope } from '../../domain/types';
import type { LlmProvider, TokenUsage } from '../../llm/ports';
import type { KeyValueStore } from '../../store/ports';
import { type ExtractOptions, extractChunk } from './extract';
import { type CachedExtraction, EXTRACTION_NAMESPACE, deleteExtractions, readExtractions } from '../../records/extractions';
import { EXTRACTION_PROMPT_VERSION } from './prompt';
import type { PromptOverride } from '../../prompts/overrides';

export { type CachedExtraction, EXTRACTION_NAMESPACE, deleteExtractions, readExtractions };

export interface ExtractionOutcome {
  extraction: CachedExtraction;
  cached: boolean;
  llm_calls: number;
  usage: TokenUsage;
}

export function isReusable(
  entry: CachedExtraction | null | undefined,
  content: string,
  llm: LlmProvider,
  override: PromptOverride | null = null,
): entry is CachedExtraction {
  return (
    !!entry &&
    entry.content_hash === contentHash(content) &&
    entry.llm_model === llm.model &&
    entry.llm_provider === llm.provider &&
    entry.prompt_version === EXTRACTION_PROMPT_VERSION &&
    (entry.prompt_override ?? null) === (override?.id ?? null)
  );
}

/** The cached extraction of a chunk when reusable, else a fresh one (stored before it is returned). */
export async function extractWithCache(
  kv: KeyValueStore,
  scope: Scope,
  llm: LlmProvider,
  chunk: { id: string; content: string },
  options: ExtractOptions,
  known?: CachedExtraction | null,
): Promise<ExtractionOutcome> {
  const entry = known === undefined ? await kv.get<CachedExtraction>(scope, EXTRACTION_NAMESPACE, chunk.id) : known;
  if (isReusable(entry, chunk.content, llm, options.override)) {
    return { extraction: entry, cached: true, llm_calls: 0, usage: { input_tokens: 0, output_tokens: 0 } };
  }
  const { extraction, llm_calls, usage } = await extractFresh(llm, chunk, options);
  await kv.set(scope, EXTRACTION_NAMESPACE, chunk.id, extraction);
  return { extraction, cached: false, llm_calls, usage };
}

/** A fresh extraction of a chunk, in the cache's form, not stored. */
export async function extractFresh(llm: LlmProvider, chunk: { content: string }, options: ExtractOptions): Promise<ExtractionOutcome> {
  const result = await extractChunk(llm, chunk, options);
  const extraction: CachedExtraction = {
    content_hash: contentHash(chunk.content),
    llm_provider: llm.provider,
    llm_model: llm.model,
    prompt_version: EXTRACTION_PROMPT_VERSION,
    ...(options.override ? { prompt_override: options.override.id } : {}),
    passes: result.raw_outputs.length,
    entities: result.entities,
    relations: result.relations,
    dropped_records: result.dropped_records,
    health: result.health,
    created_at: new Date().toISOString(),
  };
  return { extraction, cached: false, llm_calls: result.llm_calls, usage: result.usage };
}
