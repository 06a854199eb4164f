import { randomBytes, randomUUID } from 'node:crypto';
import { type GenerationInfo, type SpanAttributes, type SpanHandle, type SpanKind, type TraceBackend, plainAttributes } from './spans';

/**
 * The legacy batch API: `POST {base}/api/public/ingestion` with `{batch: [events]}`. A trace per root span, a
 * generation record per LLM call, a span record for the rest; no cost is ever sent. Events are batched and sent
 * every `intervalMs` or once `maxBatch` are waiting; a failed send is reported through `onError` and dropped.
 */

export interface IngestionOptions {
  baseUrl: string;
  authorization: string;
  intervalMs?: number;
  maxBatch?: number;
  onError: (message: string) => void;
}

interface Event {
  id: string;
  type: 'trace-create' | 'span-create' | 'generation-create';
  timestamp: string;
  body: Record<string, unknown>;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

class IngestionSpan implements SpanHandle {
  readonly id = hex(8);
  readonly traceId: string;
  private readonly startTime = new Date();
  private readonly attributes: SpanAttributes;
  private info: GenerationInfo = {};
  private ended = false;

  constructor(
    private readonly owner: IngestionBackend,
    private readonly name: string,
    private readonly kind: SpanKind,
    private readonly parent: IngestionSpan | null,
    attributes: SpanAttributes,
  ) {
    this.traceId = parent?.traceId ?? hex(16);
    this.attributes = { ...attributes };
  }

  set(attributes: SpanAttributes): void {
    Object.assign(this.attributes, attributes);
  }

  generation(info: GenerationInfo): void {
    this.info = { ...this.info, ...info };
  }

  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    const endTime = new Date().toISOString();
    const startTime = this.startTime.toISOString();
    if (!this.parent) {
      this.owner.push({
        id: randomUUID(),
        type: 'trace-create',
        timestamp: startTime,
        body: { id: this.traceId, name: this.name, timestamp: startTime, metadata: plainAttributes(this.attributes) },
      });
    }
    const body: Record<string, unknown> = {
      id: this.id,
      traceId: this.traceId,
      parentObservationId: this.parent?.id ?? null,
      name: this.name,
      startTime,
      endTime,
      metadata: plainAttributes(this.attributes),
      level: error ? 'ERROR' : 'DEFAULT',
      ...(error ? { statusMessage: error instanceof Error ? error.message : String(error) } : {}),
    };
    if (this.kind === 'generation') {
      body.model = this.info.model;
      body.usage = { input: this.info.input_tokens ?? 0, output: this.info.output_tokens ?? 0, unit: 'TOKENS' };
    }
    this.owner.push({ id: randomUUID(), type: this.kind === 'generation' ? 'generation-create' : 'span-create', timestamp: endTime, body });
  }
}

export class IngestionBackend implements TraceBackend {
  private queue: Event[] = [];
  private sending: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: IngestionOptions) {
    this.timer = setInterval(() => void this.flush(), options.intervalMs ?? 1_000);
    this.timer.unref();
  }

  start(name: string, kind: SpanKind, parent: SpanHandle | null, attributes: SpanAttributes): SpanHandle {
    return new IngestionSpan(this, name, kind, parent instanceof IngestionSpan ? parent : null, attributes);
  }

  push(event: Event): void {
    this.queue.push(event);
    if (this.queue.length >= (this.options.maxBatch ?? 100)) void this.flush();
  }

  flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return this.sending;
    this.sending = this.sending.then(() => this.send(batch));
    return this.sending;
  }

  private async send(batch: Event[]): Promise<void> {
    try {
      const res = await fetch(`${this.options.baseUrl}/api/public/ingestion`, {
        method: 'POST',
        headers: { authorization: this.options.authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ batch }),
        signal: AbortSignal.timeout(10_000),
      });
      await res.body?.cancel();
      if (!res.ok) this.options.onError(`trace export answered HTTP ${res.status}; ${batch.length} event(s) dropped`);
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      this.options.onError(`trace export failed (${e.cause?.code ?? e.name}); ${batch.length} event(s) dropped`);
    }
  }

  async shutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
