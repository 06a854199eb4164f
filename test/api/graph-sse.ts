/** A small SSE client for the graph stream tests: reads `data:` events and comments from a fetch body. */
import { sseBlocks, sseData } from '../fixtures/streams';

export interface SseEvent {
  type: string;
  [key: string]: unknown;
}

/** The `id:` line the event came with, if any. */
export function eventIdOf(event: SseEvent): string | undefined {
  return (event as { eventId?: string }).eventId;
}

export interface SseReader {
  status: number;
  contentType: string;
  /** Resolves with the first unread event matching `match`; events before it are consumed. */
  next(match?: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  /** Every event up to and including the first matching one. */
  until(match: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent[]>;
  comments: string[];
  close(): void;
}

export async function openSseReader(response: Response, controller: AbortController): Promise<SseReader> {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const waiters: Array<() => void> = [];
  let failure: Error | null = null;
  const wake = () => waiters.splice(0).forEach((w) => w());

  if (response.body && response.status === 200) {
    void (async () => {
      try {
        for await (const block of sseBlocks(response.body!)) {
          const lines = block.split('\n');
          const data = sseData(lines);
          const id = lines.find((l) => l.startsWith('id: '))?.slice(4);
          if (data) {
            const event = JSON.parse(data) as SseEvent;
            // Not enumerable: assertions on an event's fields stay about its data.
            if (id !== undefined) Object.defineProperty(event, 'eventId', { value: id, enumerable: false });
            events.push(event);
          } else if (block.startsWith(':')) comments.push(block.slice(1).trim());
          wake();
        }
        failure = new Error('stream ended');
      } catch (err) {
        failure = err as Error;
      }
      wake();
    })();
  }

  async function until(match: (e: SseEvent) => boolean, timeoutMs = 5000): Promise<SseEvent[]> {
    const deadline = Date.now() + timeoutMs;
    const taken: SseEvent[] = [];
    for (;;) {
      while (events.length > 0) {
        const event = events.shift() as SseEvent;
        taken.push(event);
        if (match(event)) return taken;
      }
      if (failure) throw new Error(`no matching event (${failure.message}); read ${JSON.stringify(taken.map((e) => e.type))}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for an event; read ${JSON.stringify(taken.map((e) => e.type))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    next: async (match = () => true, timeoutMs) => (await until(match, timeoutMs)).at(-1) as SseEvent,
    until,
    comments,
    close: () => controller.abort(),
  };
}

/** Waits until `check` holds, polling; for effects that complete just after a response (unsubscribe). */
export async function eventually(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
