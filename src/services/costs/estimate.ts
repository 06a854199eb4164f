import type { AppConfig } from '../../config/types';
import { extractionPrompt, GLEANING_INSTRUCTION } from '../../ingest/extract/prompt';
import { countMessageTokens, countTokens } from '../../llm/tokens';
import { answerPrompt } from '../../retrieval/prompts/answer';
import { keywordsPrompt } from '../../retrieval/prompts/keywords';
import { DEFAULT_BUDGET } from '../../retrieval/types';
import { roundUsd } from './pricing';

/**
 * The cost of ingesting `content_length` characters (docs/api.md §4.8), from the current chunking and gleaning
 * settings and the real extraction prompt. What a model writes per chunk is bounded by the records one call names
 * (tens of entities and relationships, each with a description), so output and the records' embedding texts are
 * counted per chunk; the figures below were measured on the offline provider with English prose. Entity resolution's
 * name searches and confirmations are not estimated (with the offline provider they add 15 to 25 %).
 */

/** Characters per cl100k token of English prose. */
export const CHARS_PER_TOKEN = 4.8;
/** Extraction output (records) of one chunk of at least FULL_CHUNK_TOKENS tokens; smaller chunks write less. */
export const EXTRACTION_OUTPUT_PER_CHUNK = 3000;
/** Gleaning output, as a share of the first pass's output (records it missed or restated). */
export const GLEANING_OUTPUT_SHARE = 0.8;
/** Embedding texts of the entities and relationships one chunk contributes (names and descriptions). */
export const RECORD_EMBEDDING_PER_CHUNK = 4300;
const FULL_CHUNK_TOKENS = 400;
/** Once an entity's fragments pass their threshold it is summarised: about this many summaries per extra chunk. */
const SUMMARIES_PER_EXTRA_CHUNK = 4;
const SUMMARY_OUTPUT_TOKENS = 200;
/** A typical question and answer. */
const QUESTION = 'What does the document say about the main organisations and how are they related to each other?';
const ANSWER_TOKENS = 250;
const KEYWORDS_OUTPUT_TOKENS = 40;

export interface EstimatePrices {
  llm: { input_per_1k: number; output_per_1k: number };
  embedding: { per_1k: number };
}

export interface Estimate {
  estimated_chunks: number;
  estimated_tokens: { extraction: number; embedding: number; query: number };
  estimated_cost_usd: { extraction: number; embedding: number; total: number };
  /** What the figures rest on. */
  assumptions: {
    document_tokens: number;
    chunk_tokens: number;
    chunk_overlap_tokens: number;
    max_gleaning: number;
    extraction_input_tokens: number;
    extraction_output_tokens: number;
    query_cost_usd: number;
  };
}

/** Token sizes of the chunks of a text of `documentTokens` tokens (windows of `size` overlapping by `overlap`). */
export function chunkSizes(documentTokens: number, size: number, overlap: number): number[] {
  if (documentTokens <= 0) return [];
  const step = Math.max(1, size - overlap);
  const sizes: number[] = [];
  for (let start = 0; ; start += step) {
    sizes.push(Math.min(size, documentTokens - start));
    if (start + size >= documentTokens) return sizes;
  }
}

export function estimateIngestion(config: AppConfig, contentLength: number, prices: EstimatePrices): Estimate {
  const { chunkTokens, chunkOverlapTokens, maxGleaning, summaryFragmentThreshold, summaryTokenThreshold } = config.ingest;
  const documentTokens = Math.ceil(contentLength / CHARS_PER_TOKEN);
  const chunks = chunkSizes(documentTokens, chunkTokens, chunkOverlapTokens);
  const promptTokens = countMessageTokens(extractionPrompt(''));
  const gleaningTokens = countTokens(GLEANING_INSTRUCTION) + 8;

  let input = 0;
  let output = 0;
  let embedding = 0;
  for (const tokens of chunks) {
    const fill = Math.min(1, tokens / FULL_CHUNK_TOKENS);
    const first = EXTRACTION_OUTPUT_PER_CHUNK * fill;
    input += promptTokens + tokens;
    output += first;
    if (maxGleaning > 0) {
      // Gleaning re-reads the prompt, the chunk and the first answer; a pass that adds nothing ends it.
      input += promptTokens + tokens + first + gleaningTokens;
      output += first * GLEANING_OUTPUT_SHARE;
    }
    embedding += tokens + RECORD_EMBEDDING_PER_CHUNK * fill;
  }
  const summaries = Math.max(0, chunks.length - summaryFragmentThreshold) * SUMMARIES_PER_EXTRA_CHUNK;
  input += summaries * summaryTokenThreshold;
  output += summaries * SUMMARY_OUTPUT_TOKENS;
  embedding = Math.round(embedding);

  const keywords = countMessageTokens(keywordsPrompt(QUESTION, []));
  const context = Math.min(DEFAULT_BUDGET.total, documentTokens + embedding);
  const answerInput =
    countMessageTokens(answerPrompt({ query: QUESTION, context: '', systemPrompt: null, history: [], direct: false })) + context;
  const queryTokens = keywords + KEYWORDS_OUTPUT_TOKENS + answerInput + ANSWER_TOKENS + countTokens(QUESTION);
  const queryCost =
    ((keywords + answerInput) / 1000) * prices.llm.input_per_1k +
    ((KEYWORDS_OUTPUT_TOKENS + ANSWER_TOKENS) / 1000) * prices.llm.output_per_1k +
    (countTokens(QUESTION) / 1000) * prices.embedding.per_1k;

  const extractionCost = (input / 1000) * prices.llm.input_per_1k + (output / 1000) * prices.llm.output_per_1k;
  const embeddingCost = (embedding / 1000) * prices.embedding.per_1k;
  return {
    estimated_chunks: chunks.length,
    estimated_tokens: { extraction: Math.round(input + output), embedding, query: queryTokens },
    estimated_cost_usd: {
      extraction: roundUsd(extractionCost),
      embedding: roundUsd(embeddingCost),
      total: roundUsd(extractionCost + embeddingCost),
    },
    assumptions: {
      document_tokens: documentTokens,
      chunk_tokens: chunkTokens,
      chunk_overlap_tokens: chunkOverlapTokens,
      max_gleaning: maxGleaning,
      extraction_input_tokens: Math.round(input),
      extraction_output_tokens: Math.round(output),
      query_cost_usd: roundUsd(queryCost),
    },
  };
}
