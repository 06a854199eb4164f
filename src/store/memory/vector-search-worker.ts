import { parentPort } from 'node:worker_threads';
import { Int8Rows } from './int8-rows';
import type { SearchReply, ThreadMessage } from './vector-search-thread';

/**
 * Worker thread entry: keeps a copy in bytes of the rows of the matrices it is sent, and answers candidate
 * searches over them (./vector-search-thread.ts). Messages are handled in the order they were posted, so a
 * search sees every write posted before it.
 */

const matrices = new Map<number, Int8Rows>();

parentPort?.on('message', (message: ThreadMessage) => {
  switch (message.op) {
    case 'write': {
      let rows = matrices.get(message.matrix);
      if (!rows) {
        rows = new Int8Rows(message.stride);
        matrices.set(message.matrix, rows);
      }
      const { stride } = message;
      message.rows.forEach((row, i) => (rows as Int8Rows).write(row, message.floats, i * stride));
      return;
    }
    case 'drop':
      matrices.delete(message.matrix);
      return;
    case 'search': {
      const found = matrices.get(message.matrix)?.candidates(message.query, message.count, message.pool);
      const reply: SearchReply = { id: message.id, rows: found ? found.slice() : null };
      parentPort?.postMessage(reply, reply.rows ? [reply.rows.buffer as ArrayBuffer] : []);
    }
  }
});
