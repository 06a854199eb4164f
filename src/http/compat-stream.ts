import { isAbortError } from '../domain/abort';
import type { Logger } from '../logger';
import { NDJSON_TYPE, ndjsonLine, SSE_TYPE, sseData } from '../services/compat';
import { compatReply, problemOfError } from './compat-errors';
import type { CompatFlavour } from './compat-paths';
import type { AppContext } from './context';
import { Problem } from './problem';
import { openStreamBody } from './stream';
import { SHUTDOWN_DETAIL } from './sse-pump';

/**
 * Streams a compatibility answer: NDJSON lines for the local runtime, SSE `data:` frames for OpenAI clients
 * (keep-alive comments while idle, never `event:` lines). The frames are produced in the background once the
 * handler returns; a client that leaves aborts the signal and so the provider call. A failure after the stream
 * opened is one last frame in the API's error shape (`{"error": ...}`), then the stream ends; so is a shutdown.
 */
export function pumpCompatStream(
  ctx: AppContext,
  log: Logger,
  flavour: CompatFlavour,
  frames: (signal: AbortSignal) => AsyncGenerator<string, void, void>,
): void {
  const where = { requestId: ctx.state.requestId, path: ctx.path };
  const lastFrame = (problem: Problem) => {
    const reply = compatReply(problem, flavour);
    return flavour === 'ollama' ? ndjsonLine(reply.body) : sseData(reply.body);
  };
  const finalText = lastFrame(new Problem(503, SHUTDOWN_DETAIL));
  const body = openStreamBody(
    ctx,
    flavour === 'ollama'
      ? { contentType: NDJSON_TYPE, finalText }
      : {
          contentType: SSE_TYPE,
          headers: { Connection: 'keep-alive' },
          keepAlive: { everyMs: 15_000, text: ': keep-alive\n\n' },
          finalText,
        },
  );
  void (async () => {
    try {
      for await (const frame of frames(body.signal)) {
        if (body.closed) break;
        body.write(frame);
      }
    } catch (err) {
      if (body.closed || body.signal.aborted || isAbortError(err)) return;
      body.write(lastFrame(problemOfError(err, log, where)));
    } finally {
      body.close();
    }
  })();
}
