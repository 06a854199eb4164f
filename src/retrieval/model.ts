import { InvalidInputError } from '../domain/errors';
import { type LlmProvider, type ProviderRegistry, UnknownProviderError } from '../llm/ports';

/**
 * The model that answers a request: the per-request override or the server default. Unknown or disabled
 * names are the caller's mistake, refused as 422 naming the field, before any model is called.
 */
export function resolveLlm(providers: ProviderRegistry, provider?: string | null, model?: string | null): LlmProvider {
  try {
    return providers.llm(provider ?? undefined, model ?? undefined);
  } catch (err) {
    if (!(err instanceof UnknownProviderError)) throw err;
    const field = err.kind === 'provider' ? 'llm_provider' : 'llm_model';
    throw new InvalidInputError([{ field, message: err.message }]);
  }
}
