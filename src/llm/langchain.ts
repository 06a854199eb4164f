import type { Embeddings } from '@langchain/core/embeddings';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { ChatOllama, OllamaEmbeddings } from '@langchain/ollama';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import type { CatalogProvider } from '../config/types';
import { raceAbort, throwIfAborted } from '../domain/abort';
import type {
  ChatMessage,
  Completion,
  CompletionOptions,
  EmbeddingProvider,
  FinishReason,
  LlmProvider,
  StreamEnd,
  TokenUsage,
} from './ports';
import { countMessageTokens, countTokens } from './tokens';
import { finishReasonOf } from './hygiene';

/**
 * LangChain adapters for providers of type `openai` (any OpenAI-compatible API) and `ollama`.
 * LangChain's own retries are off: the resilience wrapper retries.
 */

interface SamplingParams {
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  seed?: number;
}

type ChatFactory = (params: SamplingParams) => BaseChatModel;

/** OpenAI's client refuses to start without a key; OpenAI-compatible local servers ignore it. */
const NO_KEY = 'not-needed';

export function createLangChainLlm(provider: CatalogProvider, model: string): LlmProvider {
  const factory: ChatFactory =
    provider.type === 'openai'
      ? ({ temperature, maxTokens, topP, seed }) =>
          new ChatOpenAI({
            model,
            apiKey: provider.api_key ?? NO_KEY,
            configuration: { baseURL: provider.api_base ?? undefined },
            temperature,
            maxTokens,
            topP,
            modelKwargs: seed === undefined ? undefined : { seed },
            maxRetries: 0,
          })
      : ({ temperature, maxTokens, topP, seed }) =>
          new ChatOllama({
            model,
            baseUrl: provider.api_base ?? undefined,
            temperature,
            numPredict: maxTokens,
            topP,
            seed,
            // Reasoning models answer without a thinking phase when asked; its text would never be used.
            think: false,
            maxRetries: 0,
          });
  return new LangChainLlm(provider.name, model, provider.type === 'openai' ? 'openai' : 'ollama', factory);
}

export function createLangChainEmbeddings(provider: CatalogProvider, model: string, dimension: number): EmbeddingProvider {
  const listed = provider.models.find((m) => m.name === model)?.capabilities.embedding_dimension ?? 0;
  const client: Embeddings =
    provider.type === 'openai'
      ? new OpenAIEmbeddings({
          model,
          apiKey: provider.api_key ?? NO_KEY,
          configuration: { baseURL: provider.api_base ?? undefined },
          // text-embedding-3 models can shorten their vectors; ask only when the configured size differs,
          // since older models and many compatible servers reject the parameter.
          ...(dimension > 0 && dimension !== listed ? { dimensions: dimension } : {}),
          maxRetries: 0,
        })
      : new OllamaEmbeddings({ model, baseUrl: provider.api_base ?? undefined, maxRetries: 0 });
  return new LangChainEmbeddings(provider.name, model, dimension, client);
}

class LangChainLlm implements LlmProvider {
  private readonly clients = new Map<string, BaseChatModel>();

  constructor(
    readonly provider: string,
    readonly model: string,
    private readonly flavour: 'openai' | 'ollama',
    private readonly factory: ChatFactory,
  ) {}

  async complete(messages: ChatMessage[], options: CompletionOptions = {}): Promise<Completion> {
    throwIfAborted(options.signal);
    const reply = await this.client(options).invoke(toLangChain(messages), this.callOptions(options));
    const text = reply.text;
    const finish_reason = finishReasonOf(reply.response_metadata);
    return { text, usage: usageOf(reply.usage_metadata, messages, text), ...(finish_reason ? { finish_reason } : {}) };
  }

  async *stream(messages: ChatMessage[], options: CompletionOptions = {}): AsyncGenerator<string, StreamEnd, void> {
    throwIfAborted(options.signal);
    const chunks = await this.client(options).stream(toLangChain(messages), this.callOptions(options));
    let text = '';
    let reported: { input_tokens: number; output_tokens: number } | undefined;
    let finish: FinishReason | undefined;
    for await (const chunk of chunks) {
      if (chunk.usage_metadata) reported = chunk.usage_metadata;
      finish = finishReasonOf(chunk.response_metadata) ?? finish;
      const fragment = chunk.text;
      if (fragment) {
        text += fragment;
        yield fragment;
      }
    }
    return { ...usageOf(reported, messages, text), ...(finish ? { finish_reason: finish } : {}) };
  }

  private client(options: CompletionOptions): BaseChatModel {
    const { temperature, maxTokens, topP, seed } = options;
    const key = [temperature, maxTokens, topP, seed].map((v) => v ?? '').join('|');
    let client = this.clients.get(key);
    if (!client) {
      client = this.factory({ temperature, maxTokens, topP, seed });
      this.clients.set(key, client);
    }
    return client;
  }

  private callOptions(options: CompletionOptions): Record<string, unknown> {
    const call: Record<string, unknown> = { signal: options.signal };
    if (options.stop?.length) call.stop = options.stop;
    if (options.json) {
      if (this.flavour === 'openai') call.response_format = { type: 'json_object' };
      else call.format = 'json';
    }
    return call;
  }
}

class LangChainEmbeddings implements EmbeddingProvider {
  constructor(
    readonly provider: string,
    readonly model: string,
    private size: number,
    private readonly client: Embeddings,
  ) {}

  /** From the catalog or configuration; learnt from the first answer when neither knew it. */
  get dimension(): number {
    return this.size;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    if (texts.length === 0) return [];
    // LangChain embeddings take no AbortSignal; stop waiting when aborted.
    const vectors = await raceAbort(this.client.embedDocuments(texts), signal);
    if (this.size === 0 && vectors[0]) this.size = vectors[0].length;
    return vectors;
  }
}

function toLangChain(messages: ChatMessage[]): BaseMessage[] {
  return messages.map((m) =>
    m.role === 'system' ? new SystemMessage(m.content) : m.role === 'assistant' ? new AIMessage(m.content) : new HumanMessage(m.content),
  );
}

/** Usage as the API reported it, else tiktoken estimates (local servers often report nothing). */
function usageOf(reported: { input_tokens: number; output_tokens: number } | undefined, messages: ChatMessage[], text: string): TokenUsage {
  if (reported && (reported.input_tokens > 0 || reported.output_tokens > 0)) {
    return { input_tokens: reported.input_tokens, output_tokens: reported.output_tokens };
  }
  return { input_tokens: countMessageTokens(messages), output_tokens: countTokens(text) };
}
