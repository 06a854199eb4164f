import { isAbortError } from '../domain/abort';
import { UnavailableError } from '../domain/errors';
import type { EmbeddingProvider } from './ports';

/**
 * Embeds `texts` (as queries with `asQueries`, in the model's query convention); a provider that fails
 * (unreachable, erroring) becomes a 503 problem naming the model.
 */
export async function embedOrUnavailable(
  embedder: EmbeddingProvider,
  texts: string[],
  signal?: AbortSignal,
  asQueries = false,
): Promise<number[][]> {
  try {
    return asQueries && embedder.embedQueries ? await embedder.embedQueries(texts, signal) : await embedder.embed(texts, signal);
  } catch (err) {
    if (isAbortError(err)) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    throw new UnavailableError(`the embedding model ${embedder.provider}/${embedder.model} failed: ${reason.slice(0, 300)}`, 'embedding');
  }
}
