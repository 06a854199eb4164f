import { AsyncLocalStorage } from 'node:async_hooks';
import type { FinishReason } from './ports';

/** Usage accounting hook: the resilience wrapper reports every successful call here. */

export interface UsageEvent {
  provider: string;
  model: string;
  kind: 'llm' | 'embedding';
  /** The call's purpose as the caller named it (`extraction`, `gleaning`, `summary`, `keywords`, `answer`, ...). */
  task?: string;
  input_tokens: number;
  output_tokens: number;
  /** LLM calls streamed under a budget (openai, ollama): why the generation ended. */
  finish_reason?: FinishReason;
  workspace_id?: string;
  tenant_id?: string;
  /** The document being ingested, or the query being answered, when the call was made for one. */
  document_id?: string;
  query_id?: string;
  /** When the call finished. */
  at?: Date;
}

export interface UsageRecorder {
  record(e: UsageEvent): void;
}

export const noopUsageRecorder: UsageRecorder = { record() {} };

/** What usage recorded inside `runWithUsageContext` is attributed to. */
export interface UsageContext {
  workspace_id?: string;
  tenant_id?: string;
  document_id?: string;
  query_id?: string;
}

const context = new AsyncLocalStorage<UsageContext>();

/**
 * Runs `fn` so that usage recorded inside it (however deep) carries `ctx`; fields `ctx` leaves out keep the values
 * of an enclosing context (a request's workspace, then a document's id within it).
 */
export function runWithUsageContext<T>(ctx: UsageContext, fn: () => T): T {
  const outer = context.getStore();
  const merged: UsageContext = { ...outer };
  for (const [key, value] of Object.entries(ctx) as Array<[keyof UsageContext, string | undefined]>)
    if (value !== undefined) merged[key] = value;
  return context.run(merged, fn);
}

/** Runs `fn` with exactly `ctx`, whatever encloses it (work done later for the caller who queued it). */
export function runInUsageContext<T>(ctx: UsageContext, fn: () => T): T {
  return context.run({ ...ctx }, fn);
}

export function currentUsageContext(): UsageContext | undefined {
  return context.getStore();
}
