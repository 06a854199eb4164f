import { InvalidInputError } from '../../domain/errors';
import type { ChatMessage } from '../../llm/ports';
import { type CompatAnswer, noContextMark, type SamplingSettings, type TurnRequest } from './answer';
import { decodeContext, encodeContext } from './context-tokens';
import type { Embedded } from './embeddings';
import { keepAliveMs } from './keep-alive';
import { type ModelEntry, type ModelShow, RAG_FAMILY } from './models';

/**
 * The local-runtime (Ollama) API (docs/api.md §4.12): requests mapped to turns, answers presented with the
 * runtime's fields. Durations are in nanoseconds, timestamps RFC 3339.
 */

export interface OllamaOptions {
  temperature?: number | null;
  num_predict?: number | null;
  top_p?: number | null;
  seed?: number | null;
  stop?: string[] | null;
  [option: string]: unknown;
}

interface OllamaCommon {
  model: string;
  stream?: boolean | null;
  format?: unknown;
  options?: OllamaOptions | null;
  keep_alive?: string | number | null;
  images?: unknown[] | null;
  think?: unknown;
}

export interface OllamaChatBody extends OllamaCommon {
  messages?: Array<{ role: string; content: string; images?: unknown[] | null }> | null;
  tools?: unknown[] | null;
}

export interface OllamaGenerateBody extends OllamaCommon {
  prompt?: string;
  suffix?: string | null;
  system?: string | null;
  context?: number[] | null;
  raw?: boolean | null;
}

/** `options` and `format` as sampling settings: num_predict -1 (no limit) and -2 (fill the context) set none. */
export function ollamaSettings(body: OllamaCommon): SamplingSettings {
  const o = body.options ?? {};
  const s: SamplingSettings = {};
  if (o.temperature != null) s.temperature = o.temperature;
  if (o.num_predict != null && o.num_predict >= 0) s.maxTokens = o.num_predict;
  if (o.top_p != null) s.topP = o.top_p;
  if (o.seed != null) s.seed = o.seed;
  if (o.stop?.length) s.stop = o.stop;
  // `format` is "json" or a JSON schema: either way the answer must be a JSON object.
  if (body.format === 'json' || (typeof body.format === 'object' && body.format !== null)) s.json = true;
  return s;
}

/** Features of the runtime this service has no model for, refused as the runtime refuses them. */
function refuseUnsupported(body: OllamaCommon & { tools?: unknown[] | null; suffix?: string | null }, images: boolean): void {
  const unsupported = (what: string) => new InvalidInputError([{ field: 'model', message: `"${body.model}" does not support ${what}` }]);
  if (body.tools?.length) throw unsupported('tools');
  if (body.think !== undefined && body.think !== false && body.think !== null) throw unsupported('thinking');
  if (images || body.images?.length) throw unsupported('images');
  if (body.suffix) throw unsupported('insert');
}

export function ollamaChatRequest(body: OllamaChatBody): TurnRequest {
  const messages = body.messages ?? [];
  refuseUnsupported(
    body,
    messages.some((m) => m.images?.length),
  );
  return {
    model: body.model,
    messages: messages.map((m) => ({ role: m.role, content: m.content })),
    settings: ollamaSettings(body),
    keepAliveMs: keepAliveMs(body.keep_alive),
    field: 'messages',
  };
}

/**
 * A generate request as a turn: the system text, the turns of `context`, then the prompt. `raw` hands the
 * prompt to a provider model with nothing around it. `conversation(answer)` is the next `context`.
 */
export function ollamaGenerateRequest(body: OllamaGenerateBody): { request: TurnRequest; conversation(answer: string): number[] } {
  refuseUnsupported(body, false);
  const prompt = body.prompt ?? '';
  const earlier: ChatMessage[] = body.raw ? [] : decodeContext(body.context ?? []);
  const system: ChatMessage[] = body.system && !body.raw ? [{ role: 'system', content: body.system }] : [];
  return {
    request: {
      model: body.model,
      messages: [...system, ...earlier, { role: 'user', content: prompt }],
      settings: ollamaSettings(body),
      keepAliveMs: keepAliveMs(body.keep_alive),
      field: 'prompt',
    },
    conversation: (answer) => encodeContext([...earlier, { role: 'user', content: prompt }, { role: 'assistant', content: answer }]),
  };
}

const now = () => new Date().toISOString();

function finalFields(answer: CompatAnswer) {
  return {
    done: true,
    done_reason: answer.finishReason,
    total_duration: answer.durations.total_ns,
    load_duration: answer.durations.load_ns,
    prompt_eval_count: answer.promptTokens,
    prompt_eval_duration: answer.durations.prompt_eval_ns,
    eval_count: answer.completionTokens,
    eval_duration: answer.durations.eval_ns,
    ...noContextMark(answer),
  };
}

export function ollamaChatChunk(model: string, content: string) {
  return { model, created_at: now(), message: { role: 'assistant', content }, done: false };
}

/** The last object of a chat: the whole answer when not streamed, '' after streamed fragments. */
export function ollamaChatFinal(model: string, answer: CompatAnswer, content: string) {
  return { model, created_at: now(), message: { role: 'assistant', content }, ...finalFields(answer) };
}

export function ollamaGenerateChunk(model: string, response: string) {
  return { model, created_at: now(), response, done: false };
}

export function ollamaGenerateFinal(model: string, answer: CompatAnswer, response: string, context: number[]) {
  return { model, created_at: now(), response, ...finalFields(answer), context };
}

/** The answer to a request with nothing to answer: the runtime loads (or, with keep_alive 0, unloads) the model. */
export function ollamaLoadReply(kind: 'chat' | 'generate', model: string, reason: 'load' | 'unload') {
  const base = { model, created_at: now() };
  return kind === 'chat'
    ? { ...base, message: { role: 'assistant', content: '' }, done_reason: reason, done: true }
    : { ...base, response: '', done_reason: reason, done: true };
}

/** `details` of a model; what is not known of a remote model's weights reads `unknown`. */
export function ollamaDetails(m: ModelEntry) {
  const rag = m.kind === 'rag';
  return {
    parent_model: rag ? `${m.provider}/${m.model}` : '',
    format: rag ? RAG_FAMILY : m.providerType,
    family: rag ? RAG_FAMILY : m.providerType,
    families: rag ? [RAG_FAMILY, m.providerType] : [m.providerType],
    parameter_size: 'unknown',
    quantization_level: 'unknown',
  };
}

/**
 * A name as the runtime lists it: with a tag (`mock/mock-llm:latest`), since clients such as Open WebUI add
 * `:latest` to an untagged name before they look it up in the listing. Both forms resolve.
 */
export function taggedName(name: string): string {
  const at = name.lastIndexOf('@');
  const base = at < 0 ? name : name.slice(0, at);
  return base.includes(':') ? name : `${base}:latest${at < 0 ? '' : name.slice(at)}`;
}

export function ollamaTag(m: ModelEntry) {
  const name = taggedName(m.name);
  return {
    name,
    model: name,
    modified_at: m.modifiedAt.toISOString(),
    size: m.size,
    digest: m.digest,
    details: ollamaDetails(m),
  };
}

export function ollamaRunning(m: ModelEntry, expiresAt: Date) {
  const name = taggedName(m.name);
  return {
    name,
    model: name,
    size: m.size,
    digest: m.digest,
    details: ollamaDetails(m),
    expires_at: expiresAt.toISOString(),
    size_vram: 0,
    context_length: m.contextLength,
  };
}

export function ollamaShow(show: ModelShow) {
  const m = show.entry;
  const parameters = Object.entries(show.parameters)
    .map(([k, v]) => `${k.padEnd(30)} ${v}`)
    .join('\n');
  const modelfile = [
    `# Modelfile of ${m.name}, served by ${RAG_FAMILY}`,
    `FROM ${m.kind === 'rag' ? `${m.provider}/${m.model}` : m.name}`,
    ...Object.entries(show.parameters).map(([k, v]) => `PARAMETER ${k} ${v}`),
    ...(show.system ? [`SYSTEM """${show.system}"""`] : []),
  ].join('\n');
  return {
    license: '',
    modelfile,
    parameters,
    template: '{{ .Prompt }}',
    system: show.system,
    details: ollamaDetails(m),
    model_info: show.info,
    capabilities: show.capabilities,
    modified_at: m.modifiedAt.toISOString(),
  };
}

export function ollamaEmbed(model: string, e: Embedded) {
  return { model, embeddings: e.vectors, total_duration: e.total_ns, load_duration: e.load_ns, prompt_eval_count: e.promptTokens };
}
