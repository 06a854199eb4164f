import { createHash } from 'node:crypto';
import { scopeKey } from '../../domain/ids';
import type { Scope } from '../../domain/types';
import type { ChatMessage, Completion, CompletionOptions, FinishReason, LlmProvider, TokenUsage } from '../ports';
import type { Logger } from '../../logger';
import type { KeyValueStore } from '../../store/ports';
import { CacheWrites } from './writes';

/**
 * LLM responses cached per workspace (KV namespace `llm_response`), keyed by provider, model, prompt and the
 * options that shape the answer. Every call type goes through it: extraction, gleaning, summaries, keywords.
 * Re-ingesting identical text or repeating a question costs no call. Entries that follow the graph (keywords)
 * are stale once the workspace's graph changed after they were written. Identical calls in flight at once
 * share one provider call. An answer is returned when it arrives and its entry written behind it, together with
 * the entries of other calls (./writes.ts); until then the call stays in flight, so an identical call
 * still costs nothing.
 */

export const LLM_CACHE_NAMESPACE = 'llm_response';
const GRAPH_VERSION_KEY = 'graph-version';

interface CachedCompletion {
  text: string;
  usage: TokenUsage;
  finish_reason?: FinishReason;
  /** The workspace graph version the entry was written under (entries that follow the graph). */
  graph_version?: string;
}

interface GraphVersion {
  version: string;
}

export interface LlmCacheOptions {
  /** The entry is stale once the workspace graph changed after it was written. */
  followGraph?: boolean;
  /** Told when an entry could not be written (the answer was returned; the next identical call asks again). */
  log?: Pick<Logger, 'warn'>;
}

const NO_USAGE: TokenUsage = { input_tokens: 0, output_tokens: 0 };

export function llmCacheKey(
  llm: Pick<LlmProvider, 'provider' | 'model'>,
  messages: ChatMessage[],
  options: CompletionOptions = {},
): string {
  const shape = [
    llm.provider,
    llm.model,
    options.task ?? '',
    options.json ?? false,
    options.temperature ?? null,
    options.maxTokens ?? null,
  ];
  return createHash('sha256')
    .update(JSON.stringify([shape, messages.map((m) => [m.role, m.content])]))
    .digest('base64url');
}

/**
 * The response cache of one runtime: its calls in flight and the entries waiting to be written are its own, and
 * `close` writes what waits.
 */
export class LlmCache {
  private readonly inFlight = new Map<string, Promise<Completion>>();

  constructor(private readonly writes = new CacheWrites()) {}

  /** Writes every entry still waiting and waits for the writes (before a workspace's data is dropped). */
  settle(): Promise<void> {
    return this.writes.settle();
  }

  close(): Promise<void> {
    return this.settle();
  }

  /** `llm` answering from the workspace's response cache first; streams are never cached. */
  wrap(llm: LlmProvider, kv: KeyValueStore, scope: Scope, options: LlmCacheOptions = {}): LlmProvider {
    const { inFlight, writes } = this;
    const complete = async (messages: ChatMessage[], callOptions?: CompletionOptions): Promise<Completion> => {
      const key = llmCacheKey(llm, messages, callOptions);
      const found = await kv.getMany<CachedCompletion | GraphVersion>(
        scope,
        LLM_CACHE_NAMESPACE,
        options.followGraph ? [key, GRAPH_VERSION_KEY] : [key],
      );
      const hit = found.get(key) as CachedCompletion | undefined;
      const version = options.followGraph ? ((found.get(GRAPH_VERSION_KEY) as GraphVersion | undefined)?.version ?? '') : undefined;
      if (hit && hit.graph_version === version) return { ...finished(hit), text: hit.text, usage: { ...NO_USAGE }, cached: true };

      const flightKey = `${scopeKey(scope)}\u0000${key}\u0000${version ?? ''}`;
      const pending = inFlight.get(flightKey);
      if (pending) return pending.then((c) => ({ ...finished(c), text: c.text, usage: { ...NO_USAGE }, cached: true }));
      const call = llm.complete(messages, callOptions);
      inFlight.set(flightKey, call);
      const done = () => {
        if (inFlight.get(flightKey) === call) inFlight.delete(flightKey);
      };
      let out: Completion;
      try {
        out = await call;
      } catch (err) {
        done();
        throw err;
      }
      // A generation cut by the clock says how busy the machine was, not what the model answers: not kept.
      if (out.finish_reason === 'timeout') {
        done();
        return out;
      }
      const entry: CachedCompletion = {
        text: out.text,
        usage: out.usage,
        ...finished(out),
        ...(version !== undefined ? { graph_version: version } : {}),
      };
      void writes
        .writeBehind(kv, scope, LLM_CACHE_NAMESPACE, key, entry)
        .catch((err: unknown) => options.log?.warn({ err }, 'an LLM answer could not be cached'))
        .finally(done);
      return out;
    };
    return { provider: llm.provider, model: llm.model, complete, stream: (m, o) => llm.stream(m, o) };
  }
}

function finished(c: { finish_reason?: FinishReason }): { finish_reason?: FinishReason } {
  return c.finish_reason ? { finish_reason: c.finish_reason } : {};
}

/**
 * Marks the workspace graph as changed: cache entries that follow the graph written before are stale. Every
 * writer of the graph calls it before announcing its change (ingestion, deletion, entity edits and merges).
 */
export function bumpGraphVersion(kv: KeyValueStore, scope: Scope): Promise<void> {
  const version: GraphVersion = { version: `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}` };
  return kv.set(scope, LLM_CACHE_NAMESPACE, GRAPH_VERSION_KEY, version);
}
