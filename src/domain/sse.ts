/** A Server-Sent Events stream as producers see it; the HTTP layer opens it (`src/http/sse.ts`). */
export interface SseStream {
  /** `data: <json>` (or raw text when `raw` is true) followed by a blank line; `id:` before it when given. */
  send(data: unknown, raw?: boolean, id?: string): boolean;
  /** Bytes written but not yet taken by the client's connection (a slow reader makes this grow). */
  buffered(): number;
  comment(text: string): void;
  close(): void;
  readonly closed: boolean;
  /** Aborted when the client goes away or the stream is closed. */
  readonly signal: AbortSignal;
}
