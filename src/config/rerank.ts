import type { Env } from './catalog';
import type { RerankConfig, RerankProvider } from './types';

/** Reranker selection (SERVICE_RERANK_*): the offline built-in one unless a Cohere/Jina-compatible API is named. */

export const RERANK_PROVIDERS: readonly RerankProvider[] = ['builtin', 'cohere', 'jina', 'none'];

/** The vendor's own key variable, read when neither SERVICE_RERANK_API_KEY nor ..._API_KEY_ENV is set. */
const VENDOR_KEY_ENV: Partial<Record<RerankProvider, string>> = { cohere: 'COHERE_API_KEY', jina: 'JINA_API_KEY' };

interface RerankVars {
  SERVICE_RERANK_PROVIDER?: string;
  SERVICE_RERANK_URL?: string;
  SERVICE_RERANK_API_KEY?: string;
  SERVICE_RERANK_API_KEY_ENV?: string;
  SERVICE_RERANK_MODEL?: string;
}

/** Null when a problem was recorded. A vendor API at its public URL needs a key; a self-hosted URL may not. */
export function resolveRerank(vars: RerankVars, env: Env, problems: string[]): RerankConfig | null {
  const raw = vars.SERVICE_RERANK_PROVIDER?.trim().toLowerCase() ?? 'builtin';
  if (!RERANK_PROVIDERS.includes(raw as RerankProvider)) {
    problems.push(`SERVICE_RERANK_PROVIDER: must be one of ${RERANK_PROVIDERS.join(', ')}, got '${vars.SERVICE_RERANK_PROVIDER}'`);
    return null;
  }
  const provider = raw as RerankProvider;
  const url = vars.SERVICE_RERANK_URL?.replace(/\/+$/, '') ?? null;
  const model = vars.SERVICE_RERANK_MODEL ?? null;
  if (provider === 'builtin' || provider === 'none') return { provider, url: null, apiKey: null, model: null };

  const keyEnv = vars.SERVICE_RERANK_API_KEY_ENV ?? VENDOR_KEY_ENV[provider];
  const apiKey = vars.SERVICE_RERANK_API_KEY ?? (keyEnv ? env[keyEnv]?.trim() || null : null);
  if (!apiKey && vars.SERVICE_RERANK_API_KEY_ENV) {
    problems.push(`SERVICE_RERANK_API_KEY_ENV: names ${vars.SERVICE_RERANK_API_KEY_ENV}, which is not set`);
    return null;
  }
  if (!apiKey && !url) {
    problems.push(
      `SERVICE_RERANK_PROVIDER: '${provider}' needs an API key: set SERVICE_RERANK_API_KEY, SERVICE_RERANK_API_KEY_ENV or ${keyEnv}` +
        ' (or SERVICE_RERANK_URL for a self-hosted endpoint)',
    );
    return null;
  }
  return { provider, url, apiKey, model };
}
