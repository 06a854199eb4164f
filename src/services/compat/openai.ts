import { randomBytes } from 'node:crypto';
import { InvalidInputError } from '../../domain/errors';
import { tokenEncoder } from '../../llm/tokens';
import { type CompatAnswer, noContextMark, type SamplingSettings, type TurnRequest } from './answer';
import type { Embedded } from './embeddings';
import { DEFAULT_KEEP_ALIVE_MS } from './keep-alive';
import { type ModelEntry, RAG_FAMILY } from './models';

/** The OpenAI-compatible API (docs/api.md §4.12): chat completions, embeddings and models in OpenAI's shapes. */

type ContentPart = { type: string; text?: string; [k: string]: unknown };

export interface OpenAiChatBody {
  model: string;
  messages: Array<{ role: string; content?: string | ContentPart[] | null; [k: string]: unknown }>;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean | null } | null;
  temperature?: number | null;
  top_p?: number | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  stop?: string | string[] | null;
  seed?: number | null;
  n?: number | null;
  response_format?: { type: string; [k: string]: unknown } | null;
  tools?: unknown[] | null;
}

export interface OpenAiEmbeddingsBody {
  model: string;
  input: string | string[] | number[] | number[][];
  encoding_format?: 'float' | 'base64';
  dimensions?: number;
}

function textOf(content: string | ContentPart[] | null | undefined, index: number): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, p) => {
      if (part.type === 'text' && typeof part.text === 'string') return part.text;
      throw InvalidInputError.field(`messages.${index}.content.${p}`, `content parts of type '${part.type}' are not supported; send text`);
    })
    .join('');
}

export function openAiChatRequest(body: OpenAiChatBody): TurnRequest {
  if (body.n !== undefined && body.n !== null && body.n !== 1) throw InvalidInputError.field('n', 'only one choice (n = 1) is supported');
  if (body.tools?.length) throw InvalidInputError.field('tools', `"${body.model}" does not support tools`);
  const settings: SamplingSettings = {};
  if (body.temperature !== undefined && body.temperature !== null) settings.temperature = body.temperature;
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens !== undefined && maxTokens !== null) settings.maxTokens = maxTokens;
  if (body.top_p !== undefined && body.top_p !== null) settings.topP = body.top_p;
  if (body.seed !== undefined && body.seed !== null) settings.seed = body.seed;
  if (body.stop) settings.stop = typeof body.stop === 'string' ? [body.stop] : body.stop;
  if (body.response_format?.type === 'json_object' || body.response_format?.type === 'json_schema') settings.json = true;
  return {
    model: body.model,
    messages: body.messages.map((m, i) => ({ role: m.role, content: textOf(m.content, i) })),
    settings,
    keepAliveMs: DEFAULT_KEEP_ALIVE_MS,
    field: 'messages',
  };
}

/** Identity of one completion, shared by every chunk of its stream. */
export interface CompletionMeta {
  id: string;
  created: number;
  model: string;
  system_fingerprint: string;
}

export function completionMeta(model: string, version: string): CompletionMeta {
  return {
    id: `chatcmpl-${randomBytes(12).toString('hex')}`,
    created: Math.floor(Date.now() / 1000),
    model,
    system_fingerprint: `${RAG_FAMILY}-${version}`,
  };
}

export function openAiUsage(answer: CompatAnswer) {
  return {
    prompt_tokens: answer.promptTokens,
    completion_tokens: answer.completionTokens,
    total_tokens: answer.promptTokens + answer.completionTokens,
  };
}

export function openAiCompletion(meta: CompletionMeta, answer: CompatAnswer) {
  return {
    ...meta,
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: answer.text, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: answer.finishReason,
      },
    ],
    usage: openAiUsage(answer),
    ...noContextMark(answer),
  };
}

/** One chunk of a streamed completion; with `include_usage` every chunk carries `usage: null` but the last. */
export function openAiChunk(
  meta: CompletionMeta,
  delta: { role?: 'assistant'; content?: string },
  finishReason: CompatAnswer['finishReason'] | null,
  includeUsage: boolean,
) {
  return {
    ...meta,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  };
}

/** The closing chunks: the finish reason, then (when asked for) the usage with no choices. */
export function openAiClosingChunks(meta: CompletionMeta, answer: CompatAnswer, includeUsage: boolean): unknown[] {
  const chunks: unknown[] = [{ ...openAiChunk(meta, {}, answer.finishReason, includeUsage), ...noContextMark(answer) }];
  if (includeUsage) chunks.push({ ...meta, object: 'chat.completion.chunk', choices: [], usage: openAiUsage(answer) });
  return chunks;
}

export function openAiModel(m: ModelEntry) {
  return {
    id: m.name,
    object: 'model',
    created: Math.floor(m.modifiedAt.getTime() / 1000),
    owned_by: m.kind === 'rag' ? RAG_FAMILY : m.provider,
  };
}

/** The texts of an embeddings `input`: a string, strings, or token arrays (cl100k ids, decoded). */
export function openAiEmbeddingTexts(input: OpenAiEmbeddingsBody['input']): string[] {
  if (typeof input === 'string') return [input];
  if (input.length === 0) throw InvalidInputError.field('input', 'must not be empty');
  if (input.every((x) => typeof x === 'string')) return input as string[];
  if (input.every((x) => typeof x === 'number')) return [tokenEncoder().decode(input as number[])];
  return (input as number[][]).map((tokens) => tokenEncoder().decode(tokens));
}

/** Little-endian float32 bytes, base64: what the official client asks for by default and decodes. */
export function base64Vector(vector: number[]): string {
  return Buffer.from(Float32Array.from(vector).buffer).toString('base64');
}

export function openAiEmbeddings(model: string, e: Embedded, format: 'float' | 'base64') {
  return {
    object: 'list',
    data: e.vectors.map((v, index) => ({ object: 'embedding', index, embedding: format === 'base64' ? base64Vector(v) : v })),
    model,
    usage: { prompt_tokens: e.promptTokens, total_tokens: e.promptTokens },
  };
}
