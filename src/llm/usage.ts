import { AsyncLocalStorage } from 'node:async_hooks';

/** Usage accounting hook: the resilience wrapper reports every successful call here. */

export interface UsageEvent {
  provider: string;
  model: string;
  kind: 'llm' | 'embedding';
  task?: string;
  input_tokens: number;
  output_tokens: number;
  workspace_id?: string;
}

export interface UsageRecorder {
  record(e: UsageEvent): void;
}

export const noopUsageRecorder: UsageRecorder = { record() {} };

export interface UsageContext {
  workspace_id?: string;
}

const context = new AsyncLocalStorage<UsageContext>();

/** Runs `fn` so that usage recorded inside it (however deep) carries `ctx.workspace_id`. */
export function runWithUsageContext<T>(ctx: UsageContext, fn: () => T): T {
  return context.run(ctx, fn);
}

export function currentUsageContext(): UsageContext | undefined {
  return context.getStore();
}
