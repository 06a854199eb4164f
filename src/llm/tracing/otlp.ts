import { ROOT_CONTEXT, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { type GenerationInfo, type SpanAttributes, type SpanHandle, type SpanKind, type TraceBackend, plainAttributes } from './spans';

/**
 * OTLP over HTTP (`POST {base}/api/public/otel/v1/traces`) through OpenTelemetry's own SDK: spans batched by its
 * BatchSpanProcessor and flushed at shutdown. LLM calls carry the generation attributes (`gen_ai.*`) and their token
 * counts, never a cost.
 */

export interface OtlpOptions {
  baseUrl: string;
  authorization: string;
  serviceVersion: string;
  onError: (message: string) => void;
}

class OtlpSpan implements SpanHandle {
  constructor(readonly span: Span) {}

  set(attributes: SpanAttributes): void {
    this.span.setAttributes(plainAttributes(attributes));
  }

  generation(info: GenerationInfo): void {
    this.span.setAttributes(
      plainAttributes({
        'gen_ai.request.model': info.model,
        'gen_ai.usage.input_tokens': info.input_tokens,
        'gen_ai.usage.output_tokens': info.output_tokens,
      }),
    );
  }

  end(error?: unknown): void {
    if (error) this.span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    this.span.end();
  }
}

/** Reports failed exports (without the request's headers) instead of OpenTelemetry's silent diagnostics. */
class ReportingExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly onError: (message: string) => void,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) {
        this.onError(`trace export failed (${result.error?.message ?? 'error'}); ${spans.length} span(s) dropped`);
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

export class OtlpBackend implements TraceBackend {
  private readonly provider: BasicTracerProvider;
  private readonly tracer;

  constructor(options: OtlpOptions) {
    const exporter = new OTLPTraceExporter({
      url: `${options.baseUrl}/api/public/otel/v1/traces`,
      headers: { Authorization: options.authorization },
      timeoutMillis: 10_000,
    });
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'kgrag', 'service.version': options.serviceVersion }),
      spanProcessors: [new BatchSpanProcessor(new ReportingExporter(exporter, options.onError), { scheduledDelayMillis: 1_000 })],
    });
    this.tracer = this.provider.getTracer('kgrag', options.serviceVersion);
  }

  start(name: string, kind: SpanKind, parent: SpanHandle | null, attributes: SpanAttributes): SpanHandle {
    const context = parent instanceof OtlpSpan ? trace.setSpan(ROOT_CONTEXT, parent.span) : ROOT_CONTEXT;
    const extra = kind === 'generation' ? { 'langfuse.observation.type': 'generation', 'gen_ai.operation.name': 'chat' } : {};
    return new OtlpSpan(this.tracer.startSpan(name, { attributes: plainAttributes({ ...attributes, ...extra }) }, context));
  }

  flush(): Promise<void> {
    return this.provider.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.provider.shutdown();
  }
}
