import { workspaceOfModel } from '../services/compat';
import type { AppContext } from './context';

/** The compatibility APIs' paths (docs/api.md §4.12): which API a path belongs to, and the workspace it names. */

export type CompatFlavour = 'ollama' | 'openai';

/** `/v1/...` is the OpenAI-compatible API; `/api/...` outside `/api/v1` the local runtime's. */
export function compatFlavourOf(path: string): CompatFlavour | null {
  if (path === '/v1' || path.startsWith('/v1/')) return 'openai';
  if (path.startsWith('/api/') && !/^\/api\/v1(\/|$)/.test(path)) return 'ollama';
  return null;
}

const MODEL_PATH = /^\/v1\/models\/(.+)$/;

/**
 * The workspace a compatibility request names through its model (`kgrag:hybrid@<workspace>`): the body's
 * `model` (or the runtime's older `name`), or the model of `GET /v1/models/:id`. Null when it names none.
 */
export function compatWorkspaceOf(ctx: AppContext): string | null {
  if (!compatFlavourOf(ctx.path)) return null;
  const inPath = ctx.method === 'GET' ? MODEL_PATH.exec(ctx.path) : null;
  if (inPath) return workspaceOfModel(safeDecode(inPath[1]));
  const body = (ctx.request as { body?: unknown }).body;
  if (!body || typeof body !== 'object') return null;
  const { model, name } = body as { model?: unknown; name?: unknown };
  return workspaceOfModel(model ?? name);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
