/**
 * Turns LOG_LEVEL / RUST_LOG into one pino level. Accepts plain levels (`debug`) and RUST_LOG-style filters
 * (`kgrag=debug,tower_http=warn,info`): a directive for our own target wins over the global level.
 */

export const SERVICE_LOG_TARGET = 'kgrag';

const LEVELS: Record<string, string> = {
  trace: 'trace',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  warning: 'warn',
  error: 'error',
  fatal: 'fatal',
  off: 'silent',
  silent: 'silent',
};
const VERBOSITY = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'];

function isOwnTarget(target: string): boolean {
  return target === SERVICE_LOG_TARGET || target.startsWith(`${SERVICE_LOG_TARGET}::`) || target.startsWith(`${SERVICE_LOG_TARGET}_`);
}

/** The pino level a filter sets for this service, `undefined` when it names none for us; throws on a bad level. */
export function parseLogFilter(filter: string): string | undefined {
  let global: string | undefined;
  let own: string | undefined;
  for (const raw of filter.split(',')) {
    const directive = raw.trim().replace(/\[.*$/, '').replace(/\/.*$/, '');
    if (!directive) continue;
    const eq = directive.indexOf('=');
    if (eq < 0) {
      const level = LEVELS[directive.toLowerCase()];
      if (level) global = level;
      // A bare target (`kgrag`) enables every level for it, as in RUST_LOG.
      else if (isOwnTarget(directive)) own = mostVerbose(own, 'trace');
      continue;
    }
    const target = directive.slice(0, eq).trim();
    const levelName = directive
      .slice(eq + 1)
      .trim()
      .toLowerCase();
    const level = LEVELS[levelName];
    if (!level) throw new Error(`unknown log level '${levelName}' (use trace, debug, info, warn, error or off)`);
    if (isOwnTarget(target)) own = mostVerbose(own, level);
  }
  return own ?? global;
}

function mostVerbose(a: string | undefined, b: string): string {
  if (a === undefined) return b;
  return VERBOSITY.indexOf(a) >= VERBOSITY.indexOf(b) ? a : b;
}
