import type { Middleware } from 'koa';
import type { Logger } from '../../logger';
import type { AppState } from '../context';

export function accessLog(log: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const ms = Math.round(performance.now() - started);
      const level = ctx.status >= 500 ? 'warn' : 'debug';
      log[level]({ requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms }, 'request');
    }
  };
}
