import type { AppConfig } from '../../config/types';
import { InvalidInputError } from '../../domain/errors';
import type { Scope } from '../../domain/types';
import { findModel } from '../../llm/catalog-view';
import { embedOrUnavailable } from '../../llm/embed-or-unavailable';
import type { EmbeddingProvider, ProviderRegistry } from '../../llm/ports';
import { countTokens, tokenLayout } from '../../llm/tokens';
import type { LoadedModels } from './keep-alive';
import { describeModel, resolveModel } from './models';

export interface EmbedRequest {
  /** The name as the client sent it: a RAG model embeds with the workspace's embedding model. */
  model: string;
  inputs: string[];
  /** Cut inputs longer than the model's context (else refuse them). */
  truncate: boolean;
  /** The size the client expects; refused when the model produces another. */
  dimensions?: number;
  keepAliveMs: number;
  /** The request field holding the texts, named by errors (`input`, `prompt`). */
  field: string;
}

export interface Embedded {
  vectors: number[][];
  promptTokens: number;
  /** Wall time of the whole request and of the model call, in nanoseconds. */
  total_ns: number;
  load_ns: number;
  provider: string;
  model: string;
}

export interface EmbeddingDeps {
  config: AppConfig;
  providers: ProviderRegistry;
  loaded: LoadedModels;
}

/** Embeds texts with the model a compatibility request names (docs/api.md §4.12). */
export async function embedTexts(deps: EmbeddingDeps, scope: Scope, req: EmbedRequest, signal?: AbortSignal): Promise<Embedded> {
  const startedAt = performance.now();
  const ref = resolveModel(deps.config, req.model);
  if (ref.kind === 'provider' && ref.type !== 'embedding') {
    throw InvalidInputError.field('model', `"${req.model}" does not support embeddings; use an embedding model or a kgrag model`);
  }
  const embedder = ref.kind === 'rag' ? deps.providers.embedding() : deps.providers.embedding(ref.provider, ref.model);
  if (req.dimensions !== undefined && embedder.dimension > 0 && req.dimensions !== embedder.dimension) {
    throw InvalidInputError.field(
      'dimensions',
      `${embedder.provider}/${embedder.model} produces ${embedder.dimension}-dimension embeddings`,
    );
  }
  const texts = fitContext(deps.config, embedder, req);
  deps.loaded.touch(scope, describeModel(deps.config, ref).name, req.keepAliveMs);
  const loadedAt = performance.now();
  const vectors = texts.length ? await embedOrUnavailable(embedder, texts, signal) : [];
  const end = performance.now();
  return {
    vectors,
    promptTokens: texts.reduce((n, t) => n + countTokens(t), 0),
    total_ns: Math.round((end - startedAt) * 1e6),
    load_ns: Math.round((loadedAt - startedAt) * 1e6),
    provider: embedder.provider,
    model: embedder.model,
  };
}

/** Inputs within the model's context length: cut when `truncate`, else refused naming the input. */
function fitContext(config: AppConfig, embedder: EmbeddingProvider, req: EmbedRequest): string[] {
  const limit = findModel(config.catalog, embedder.provider, embedder.model)?.capabilities.context_length ?? 0;
  return req.inputs.map((text, i) => {
    if (!text) throw InvalidInputError.field(req.inputs.length > 1 ? `${req.field}.${i}` : req.field, 'must not be empty');
    if (limit <= 0) return text;
    const layout = tokenLayout(text);
    if (layout.count <= limit) return text;
    if (!req.truncate) {
      const where = req.inputs.length > 1 ? `${req.field}.${i}` : req.field;
      throw InvalidInputError.field(where, `${layout.count} tokens exceed the model's context length of ${limit}`);
    }
    return text.slice(0, layout.starts[limit]);
  });
}
