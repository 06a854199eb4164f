import { type Server, maxHeaderSize } from 'node:http';
import type { Duplex } from 'node:stream';
import { Problem } from './problem';

/**
 * Requests Node refuses before the app sees them (headers over the size limit, a malformed request line) get a
 * problem body instead of an empty reply: 431 for headers too large, 400 otherwise.
 */
export function answerClientErrors(server: Server, typeBase: string): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || (err.code === 'ECONNRESET' && !socket.readable)) {
      socket.destroy();
      return;
    }
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const problem = tooLarge
      ? new Problem(431, `request headers exceed the ${maxHeaderSize}-byte limit`)
      : new Problem(400, 'malformed HTTP request');
    const body = JSON.stringify(problem.body(typeBase, ''));
    const reason = tooLarge ? 'Request Header Fields Too Large' : 'Bad Request';
    socket.end(
      `HTTP/1.1 ${problem.status} ${reason}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  });
}
