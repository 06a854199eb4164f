/**
 * The streaming contract (docs/architecture.md, Streams): a service streams by handing out an async generator of
 * typed events; the HTTP layer (src/http/sse-pump.ts) pumps them to the client and the route presents each one.
 * Producers never see the wire: no framing, no response, only this sink.
 */

/** What a producer sees of the stream it feeds. */
export interface StreamSink {
  /** Aborted when the client goes away or the stream ends: work for nobody stops. */
  readonly signal: AbortSignal;
  /** Bytes sent but not yet taken by the client's connection (a slow reader makes this grow); 0 before it opens. */
  buffered(): number;
  /** The id of the last event the client received (Last-Event-ID), on a resumable stream that was given one. */
  readonly lastEventId?: string;
}

/** A stream's events, produced once the pump asks for them. */
export type EventSource<E> = (sink: StreamSink) => AsyncGenerator<E, void, void>;
