import { createServer } from 'node:net';
import { loadavg } from 'node:os';

/** The machine's load average over 1, 5 and 15 minutes, as /proc/loadavg shows it: "1.20 0.85 0.60". */
export function loadAverage(digits = 2, separator = ' '): string {
  return loadavg()
    .map((load) => load.toFixed(digits))
    .join(separator);
}

/** A TCP port on 127.0.0.1 that nothing listens on (the system's pick), for a process started next. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
