import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import pino from 'pino';
import { NotFoundError } from '../../src/domain/errors';
import type { EventSource, StreamSink } from '../../src/domain/stream';
import type { AppContext, AppState } from '../../src/http/context';
import { type Presented, type PumpOptions, pumpEvents } from '../../src/http/sse-pump';

/** The stream pump (docs/architecture.md §2.1) on a real Koa server: framing, ids, errors, resume, keep-alive. */

type Event = { n: number } | { wait: Promise<void> };

const log = pino({ level: 'silent' });
let server: Server;
let route: (ctx: AppContext) => Promise<void> | void;

beforeAll(async () => {
  const app = new Koa<AppState>();
  // A client that leaves mid-stream is expected here, not an error to print.
  app.silent = true;
  app.use(async (ctx, next) => {
    ctx.state.requestId = 'req-1';
    try {
      await next();
    } catch (err) {
      ctx.status = err instanceof NotFoundError ? 404 : 500;
      ctx.body = { failed: (err as Error).message };
    }
  });
  app.use((ctx) => route(ctx as AppContext));
  server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

const url = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/s`;

/** A source of the given events; `{wait}` pauses it until the promise settles. */
function source(events: Event[], seen?: (sink: StreamSink) => void, fail?: Error): EventSource<Event> {
  return async function* (sink) {
    seen?.(sink);
    for (const event of events) {
      if ('wait' in event) await event.wait;
      else yield event;
    }
    if (fail) throw fail;
  };
}

const serve = (events: EventSource<Event>, present: (e: Event) => Presented | Presented[], options: Partial<PumpOptions<Event>> = {}) => {
  route = (ctx) => pumpEvents(ctx, events, present, { log, errorTypeBase: 'https://errors.test', ...options });
};

const json = (e: Event): Presented => ({ data: e });

describe('pumpEvents', () => {
  it('frames NDJSON lines, and an error after the stream opened as the presenter maps it', async () => {
    serve(source([{ n: 1 }, { n: 2 }], undefined, new NotFoundError('gone')), json, {
      framing: 'ndjson',
      presentError: ({ problem }) => ({ data: { error: problem.detail } }),
    });
    const res = await fetch(url());
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    expect(await res.text()).toBe('{"n":1}\n{"n":2}\n{"error":"gone"}\n');
  });

  it('frames SSE events with ids, raw text and several frames per event; the default error event is the problem', async () => {
    serve(source([{ n: 1 }, { n: 2 }], undefined, new Error('secret cause')), (e) =>
      'n' in e && e.n === 1 ? { data: e, id: 'a' } : [{ data: 'x\ny', raw: true }, null, { data: e }],
    );
    const res = await fetch(url());
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const text = await res.text();
    expect(text).toBe(
      'id: a\ndata: {"n":1}\n\ndata: x\ndata: y\n\ndata: {"n":2}\n\n' +
        'data: {"type":"error","error":{"type":"https://errors.test/internal-error","title":"Internal Server Error",' +
        '"status":500,"detail":"internal error; quote request id req-1"}}\n\n',
    );
    expect(text).not.toMatch(/secret/);
  });

  it('opens on the first event when asked: a failure before it is an ordinary response', async () => {
    serve(source([], undefined, new NotFoundError('no such start node')), json, { openOnFirstEvent: true });
    const res = await fetch(url());
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ failed: 'no such start node' });
  });

  it('hands a resumable stream the Last-Event-ID header, or the given id first', async () => {
    const ids: Array<string | undefined> = [];
    const events = source([{ n: 1 }], (sink) => ids.push(sink.lastEventId));
    serve(events, json, { resume: {} });
    await (await fetch(url(), { headers: { 'Last-Event-ID': ' 7-0.2 ' } })).text();
    serve(events, json, { resume: { given: '9-0' } });
    await (await fetch(url(), { headers: { 'Last-Event-ID': '7-0' } })).text();
    serve(events, json);
    await (await fetch(url(), { headers: { 'Last-Event-ID': '7-0' } })).text();
    expect(ids).toEqual(['7-0.2', '9-0', undefined]);
  });

  it('sends the keep-alive event after a silence, and returns the producer when the client leaves', async () => {
    let release = () => {};
    let cleaned = false;
    let askedPast = false;
    const events: EventSource<Event> = async function* ({ signal }) {
      try {
        yield { n: 1 };
        await new Promise<void>((resolve) => (release = resolve));
        yield { n: 2 };
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        yield { n: 3 };
        askedPast = true;
      } finally {
        cleaned = true;
      }
    };
    serve(events, (e) => ({ data: e, id: 'n' in e ? String(e.n) : undefined }), { keepAlive: { everyMs: 20, event: () => ({ n: 0 }) } });
    const controller = new AbortController();
    const res = await fetch(url(), { signal: controller.signal });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('id: 0\ndata: {"n":0}\n\n')) text += decoder.decode((await reader.read()).value);
    expect(text.startsWith('id: 1\ndata: {"n":1}\n\n')).toBe(true);
    release();
    while (!text.includes('data: {"n":2}')) text += decoder.decode((await reader.read()).value);
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    // The producer yields once more when the client leaves: the pump does not ask for more but returns it.
    for (let i = 0; i < 100 && !cleaned; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(cleaned).toBe(true);
    expect(askedPast).toBe(false);
  });
});
