import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Spans of the service's own work (docs/api.md §1.4): ingestion (document, chunk extraction, merge, embedding) and
 * queries (keywords, retrieval steps, rerank, generation), and a generation record per LLM call. Code opens spans
 * with `withSpan`; the backend of the runtime the work runs for (none, OTLP or the ingestion API) exports them:
 * each runtime runs its requests and its background work with `runWithTraceBackend`. Nothing here ever throws
 * into the traced work.
 */

export type SpanKind = 'span' | 'generation';
export type SpanAttributes = Record<string, string | number | boolean | null | undefined>;

/** What a generation record carries besides attributes: the model and its token counts (never a cost). */
export interface GenerationInfo {
  model?: string;
  input_tokens?: number;
  output_tokens?: number;
}

export interface SpanHandle {
  set(attributes: SpanAttributes): void;
  generation(info: GenerationInfo): void;
  end(error?: unknown): void;
}

export interface TraceBackend {
  start(name: string, kind: SpanKind, parent: SpanHandle | null, attributes: SpanAttributes): SpanHandle;
  /** Sends what is batched. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

const current = new AsyncLocalStorage<SpanHandle>();
const backends = new AsyncLocalStorage<TraceBackend | null>();

/** Runs `fn`, and the work it starts, with `backend` exporting its spans (none with null). */
export function runWithTraceBackend<T>(backend: TraceBackend | null, fn: () => T): T {
  return backends.run(backend, fn);
}

function traceBackend(): TraceBackend | null {
  return backends.getStore() ?? null;
}

function safely<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}

/** Runs `work` inside a span, a child of the current one; without a backend it just runs `work`. */
export async function withSpan<T>(
  name: string,
  attributes: SpanAttributes,
  work: (span: SpanHandle | null) => Promise<T>,
  kind: SpanKind = 'span',
): Promise<T> {
  const active = traceBackend();
  if (!active) return work(null);
  const span = safely(() => active.start(name, kind, current.getStore() ?? null, attributes));
  if (!span) return work(null);
  try {
    const result = await current.run(span, () => work(span));
    safely(() => span.end());
    return result;
  } catch (err) {
    safely(() => span.end(err));
    throw err;
  }
}

/** Adds attributes to the current span, if any. */
export function annotateSpan(attributes: SpanAttributes): void {
  const span = current.getStore();
  if (span) safely(() => span.set(attributes));
}

/** The current span: work started later on its behalf (a stream's body) runs under it with `runInSpan`. */
export function currentSpan(): SpanHandle | null {
  return current.getStore() ?? null;
}

export function runInSpan<T>(span: SpanHandle | null, fn: () => T): T {
  return span ? current.run(span, fn) : fn();
}

/** Attributes as plain values: undefined and null left out. */
export function plainAttributes(attributes: SpanAttributes): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(attributes)) if (v !== undefined && v !== null) out[k] = v;
  return out;
}

/** A span ended by the caller (a stream's life), a child of the current one; null without a backend. */
export function openSpan(name: string, attributes: SpanAttributes, kind: SpanKind = 'span'): SpanHandle | null {
  const active = traceBackend();
  if (!active) return null;
  return safely(() => active.start(name, kind, current.getStore() ?? null, attributes)) ?? null;
}

/** Ends a span from `openSpan`, never throwing. */
export function closeSpan(span: SpanHandle | null, error?: unknown): void {
  if (span) safely(() => span.end(error));
}
