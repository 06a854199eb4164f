import { send } from './client';

/**
 * Reads a Server-Sent Events response with fetch (so that the session's headers go along, which EventSource
 * cannot send) and hands each `data:` JSON object to onEvent until the stream ends or the signal aborts.
 */
export async function readEvents(url: string, init: RequestInit, onEvent: (event: Record<string, unknown>) => void): Promise<void> {
  const res = await send(url, { ...init, headers: { Accept: 'text/event-stream', ...(init.headers as Record<string, string>) } });
  if (!res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      const data = frame
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (!data) continue;
      try {
        onEvent(JSON.parse(data) as Record<string, unknown>);
      } catch {
        onEvent({ type: 'text', content: data });
      }
    }
  }
}
