import type { TracingApi, TracingConfig } from './types';

/**
 * Export of traces to a tracing backend (docs/api.md §1.4): on when both keys are set. The secret key is kept
 * here and in the exporter's Authorization header only; it is never logged or shown.
 */

export const TRACING_APIS: readonly TracingApi[] = ['auto', 'ingestion', 'otlp'];
/** The backend's hosted cloud, used when no base URL is set. */
export const DEFAULT_TRACING_BASE_URL = 'https://cloud.langfuse.com';

interface TracingVars {
  TRACING_PUBLIC_KEY?: string;
  TRACING_SECRET_KEY?: string;
  TRACING_BASE_URL?: string;
  TRACING_PROJECT_ID?: string;
  SERVICE_TRACING_API?: string;
}

/** Null when a problem was recorded. */
export function resolveTracing(vars: TracingVars, problems: string[]): TracingConfig | null {
  const api = (vars.SERVICE_TRACING_API?.trim().toLowerCase() ?? 'auto') as TracingApi;
  if (!TRACING_APIS.includes(api)) {
    problems.push(`SERVICE_TRACING_API: must be one of ${TRACING_APIS.join(', ')}, got '${vars.SERVICE_TRACING_API}'`);
    return null;
  }
  const publicKey = vars.TRACING_PUBLIC_KEY ?? null;
  const secretKey = vars.TRACING_SECRET_KEY ?? null;
  if ((publicKey === null) !== (secretKey === null)) {
    problems.push(
      `${publicKey ? 'TRACING_SECRET_KEY' : 'TRACING_PUBLIC_KEY'}: trace export needs both TRACING_PUBLIC_KEY and TRACING_SECRET_KEY`,
    );
    return null;
  }
  return {
    enabled: publicKey !== null && secretKey !== null,
    publicKey,
    secretKey,
    baseUrl: (vars.TRACING_BASE_URL ?? DEFAULT_TRACING_BASE_URL).replace(/\/+$/, ''),
    projectId: vars.TRACING_PROJECT_ID ?? null,
    api,
  };
}
