import type { TracingApi, TracingConfig } from '../../config/types';
import { IngestionBackend } from './ingestion';
import { type TraceBackend, runWithTraceBackend } from './spans';

/** `GET /settings/tracing` and `/health` `operational.observability` (docs/api.md §1.4). */
export interface TracingStatus {
  export_active: boolean;
  base_url: string;
  api: TracingApi;
  api_resolved: 'otlp' | 'ingestion' | null;
  project_id: string | null;
}

/** One runtime's tracing: its status, and its backend for the work it runs. */
export interface Tracing {
  status: TracingStatus;
  /** Runs `fn`, and the work it starts, with this runtime's backend exporting its spans. */
  run<T>(fn: () => T): T;
  /** Sends what is batched and stops exporting. */
  shutdown(): Promise<void>;
}

export interface TracingLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

const PROBE_TIMEOUT_MS = 3_000;

/**
 * Start-up: with `auto`, one probe of the OTLP endpoint (404 selects the legacy ingestion API, anything else OTLP);
 * the project id from `GET /api/public/projects` when not configured. Neither ever stops the service.
 */
export async function startTracing(config: TracingConfig, version: string, log: TracingLogger): Promise<Tracing> {
  const status: TracingStatus = {
    export_active: config.enabled,
    base_url: config.baseUrl,
    api: config.api,
    api_resolved: null,
    project_id: config.projectId,
  };
  if (!config.enabled || !config.publicKey || !config.secretKey) {
    return { status, run: (fn) => runWithTraceBackend(null, fn), shutdown: async () => undefined };
  }
  const authorization = `Basic ${Buffer.from(`${config.publicKey}:${config.secretKey}`).toString('base64')}`;
  const resolved = config.api === 'auto' ? await probe(config.baseUrl, authorization, log) : config.api;
  status.api_resolved = resolved;
  status.project_id = config.projectId ?? (await projectId(config.baseUrl, authorization, log));
  const onError = (message: string) => log.warn({ base_url: config.baseUrl, api: resolved }, message);
  const backend: TraceBackend =
    resolved === 'otlp'
      ? otlp(config.baseUrl, authorization, version, onError)
      : new IngestionBackend({ baseUrl: config.baseUrl, authorization, onError });
  log.info(
    { base_url: config.baseUrl, api: config.api, api_resolved: resolved, project_id: status.project_id },
    `traces are exported to ${config.baseUrl} (${resolved})`,
  );
  return {
    status,
    run: (fn) => runWithTraceBackend(backend, fn),
    async shutdown() {
      await backend.shutdown().catch((err: Error) => onError(`trace export at shutdown failed (${err.name})`));
    },
  };
}

async function probe(baseUrl: string, authorization: string, log: TracingLogger): Promise<'otlp' | 'ingestion'> {
  try {
    const res = await fetch(`${baseUrl}/api/public/otel/v1/traces`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ resourceSpans: [] }),
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    await res.body?.cancel();
    return res.status === 404 ? 'ingestion' : 'otlp';
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    log.warn(
      { base_url: baseUrl },
      `the tracing backend did not answer the OTLP probe (${e.cause?.code ?? e.name}); exporting through OTLP`,
    );
    return 'otlp';
  }
}

async function projectId(baseUrl: string, authorization: string, log: TracingLogger): Promise<string | null> {
  try {
    const res = await fetch(`${baseUrl}/api/public/projects`, {
      headers: { authorization },
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    if (!res.ok) {
      await res.body?.cancel();
      log.warn({ base_url: baseUrl }, `the tracing backend answered HTTP ${res.status} for its projects; the project id stays unknown`);
      return null;
    }
    const body = (await res.json()) as { data?: Array<{ id?: unknown }> };
    const id = body.data?.[0]?.id;
    return typeof id === 'string' ? id : null;
  } catch (err) {
    log.warn(
      { base_url: baseUrl },
      `the tracing backend's projects could not be read (${(err as Error).name}); the project id stays unknown`,
    );
    return null;
  }
}

/** OpenTelemetry's SDK, loaded only when traces are exported through OTLP. */
function otlp(baseUrl: string, authorization: string, serviceVersion: string, onError: (m: string) => void): TraceBackend {
  /* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/consistent-type-imports -- loaded on first use, see above */
  const { OtlpBackend } = require('./otlp') as typeof import('./otlp');
  /* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/consistent-type-imports */
  return new OtlpBackend({ baseUrl, authorization, serviceVersion, onError });
}
