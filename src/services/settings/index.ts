import { deepFreeze } from '../../config/freeze';
import type { AppConfig } from '../../config/types';
import type { Scope } from '../../domain/types';
import { ConflictError, InvalidInputError } from '../../domain/errors';
import { KeyedLock } from '../../records/locks';
import type { SettingsRecord } from '../../domain/accounts';
import type { Logger } from '../../logger';
import type { QueryInput, QueryService } from '../../retrieval';
import type { RecordCollection } from '../../store/ports';
import type { ChatInput, ChatService } from '../chat';
import { type RuntimeSettings, type SettingsPatch, settingsPatchSchema } from './schema';

export { settingsSchema, settingsPatchSchema, type RuntimeSettings, type SettingsPatch } from './schema';

/**
 * Runtime settings (docs/api.md §4.11): start from the environment, then what an operator stored (it outlives
 * restarts: a `(:Settings)` node in persistent mode), and apply at once. The configuration itself is read-only:
 * the service publishes a new one, the environment's with the settings applied (`config()`), to readers that read
 * it at each use (the ingest pipeline and the cost estimates through the runtime's getter, the rate limiter) or
 * subscribe to it; queries and chat get their defaults through `withQueryDefaults`.
 */

const RECORD_ID = 'service';

export interface SettingsService {
  current(): RuntimeSettings;
  /** The live configuration: the environment's with the current settings applied (read-only, replaced on change). */
  config(): AppConfig;
  /** Calls `listener` with each configuration published from now on; answers the function that stops it. */
  subscribe(listener: (config: AppConfig) => void): () => void;
  /** Reads the stored settings (start-up) and applies them over the environment's. */
  load(): Promise<RuntimeSettings>;
  /** Validates the whole result, stores it, then applies it; a refused change changes nothing. */
  update(patch: SettingsPatch): Promise<RuntimeSettings>;
  /**
   * Reads the stored record every `intervalMs` and applies a change another instance made (several instances on one
   * database); answers the function that stops it.
   */
  follow(intervalMs: number): () => void;
}

/** The settings the configuration (env) gives. */
export function settingsOf(config: AppConfig, query: RuntimeSettings['query']): RuntimeSettings {
  const i = config.ingest;
  const r = config.rateLimits;
  return {
    query: { ...query },
    ingest: {
      chunk_tokens: i.chunkTokens,
      chunk_overlap_tokens: i.chunkOverlapTokens,
      max_gleaning: i.maxGleaning,
      summary_entity_fragments: i.summaryFragmentThreshold,
      summary_entity_tokens: i.summaryTokenThreshold,
      summary_relationship_fragments: i.summaryRelationshipFragmentThreshold,
      summary_relationship_tokens: i.summaryRelationshipTokenThreshold,
    },
    rate_limits: { window_ms: r.windowMs, upload: r.upload, query: r.query, graph: r.graph },
  };
}

/** The environment's configuration with the settings applied: a new read-only object, `config` left as it is. */
export function withSettings(config: AppConfig, s: RuntimeSettings): AppConfig {
  return deepFreeze({
    ...config,
    ingest: {
      ...config.ingest,
      chunkTokens: s.ingest.chunk_tokens,
      chunkOverlapTokens: s.ingest.chunk_overlap_tokens,
      maxGleaning: s.ingest.max_gleaning,
      summaryFragmentThreshold: s.ingest.summary_entity_fragments,
      summaryTokenThreshold: s.ingest.summary_entity_tokens,
      summaryRelationshipFragmentThreshold: s.ingest.summary_relationship_fragments,
      summaryRelationshipTokenThreshold: s.ingest.summary_relationship_tokens,
    },
    rateLimits: {
      windowMs: s.rate_limits.window_ms,
      upload: s.rate_limits.upload,
      query: s.rate_limits.query,
      graph: s.rate_limits.graph,
    },
  });
}

function merged(base: RuntimeSettings, patch: SettingsPatch): RuntimeSettings {
  return {
    query: { ...base.query, ...patch.query },
    ingest: { ...base.ingest, ...patch.ingest },
    rate_limits: { ...base.rate_limits, ...patch.rate_limits },
  };
}

function checkWhole(s: RuntimeSettings): void {
  if (s.ingest.chunk_overlap_tokens >= s.ingest.chunk_tokens) {
    throw new InvalidInputError([
      {
        field: 'ingest.chunk_overlap_tokens',
        message: `must be smaller than ingest.chunk_tokens (${s.ingest.chunk_tokens}), got ${s.ingest.chunk_overlap_tokens}`,
      },
    ]);
  }
}

export function createSettingsService(deps: {
  config: AppConfig;
  records: RecordCollection<SettingsRecord>;
  log: Logger;
  queryDefaults: RuntimeSettings['query'];
}): SettingsService {
  const { config, records, log } = deps;
  /** The environment's settings, under what an operator stored. */
  const base = settingsOf(config, deps.queryDefaults);
  let settings = structuredClone(base);
  /** What an operator changed (kept apart, so that the environment still supplies everything else). */
  let stored: SettingsPatch = {};
  /** The stored record's text as last applied here: a record found different was changed by another instance. */
  let seen: string | null = null;
  /** Changes apply one after the other: each merges into what the previous one left. */
  const changes = new KeyedLock();
  let live = config;
  const listeners = new Set<(config: AppConfig) => void>();

  function apply(next: RuntimeSettings): void {
    settings = next;
    live = withSettings(config, next);
    for (const listener of listeners) listener(live);
  }

  /** Applies a stored record's values over the environment's; false (and nothing changes) when they are not valid. */
  function applyStored(values_json: string): boolean {
    seen = values_json;
    let parsed;
    try {
      parsed = settingsPatchSchema.safeParse(JSON.parse(values_json));
    } catch {
      parsed = null;
    }
    const next = parsed?.success ? merged(base, parsed.data) : null;
    if (!parsed?.success || !next || next.ingest.chunk_overlap_tokens >= next.ingest.chunk_tokens) {
      log.warn({ record: values_json }, "stored settings are not valid any more; the environment's settings apply");
      return false;
    }
    stored = parsed.data;
    apply(next);
    return true;
  }

  /** Reads the stored record and applies it when another instance changed it since; answers the record's text. */
  async function refresh(): Promise<string | null> {
    const record = await records.get(RECORD_ID);
    if (record && record.values_json !== seen && applyStored(record.values_json) && seen !== null) {
      log.info({ settings: stored }, 'runtime settings changed by another instance');
    }
    return record?.values_json ?? null;
  }

  /**
   * Writes the record only if it still holds `previous` (what this change was merged into): false when another
   * instance changed it meanwhile. Another instance may also have created it meanwhile.
   */
  async function store(previous: string | null, values_json: string): Promise<boolean> {
    const now = new Date().toISOString();
    if (previous !== null) return (await records.updateIf(RECORD_ID, { values_json: previous }, { values_json, updated_at: now })) !== null;
    try {
      await records.insert({ id: RECORD_ID, values_json, created_at: now, updated_at: now });
      return true;
    } catch (err) {
      if (err instanceof ConflictError) return false;
      throw err;
    }
  }

  return {
    current: () => structuredClone(settings),

    config: () => live,

    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },

    async load() {
      const record = await records.get(RECORD_ID);
      if (record) applyStored(record.values_json);
      return structuredClone(settings);
    },

    async update(patch) {
      const release = await changes.acquire([RECORD_ID]);
      try {
        // Merged into the record as stored now, and written only if it is still that: a change another instance
        // makes at the same moment is kept, not overwritten.
        for (;;) {
          const previous = await refresh();
          const next = merged(settings, patch);
          checkWhole(next);
          const nextStored: SettingsPatch = {
            query: { ...stored.query, ...patch.query },
            ingest: { ...stored.ingest, ...patch.ingest },
            rate_limits: { ...stored.rate_limits, ...patch.rate_limits },
          };
          const text = JSON.stringify(nextStored);
          if (!(await store(previous, text))) continue;
          seen = text;
          stored = nextStored;
          apply(next);
          log.info({ settings: patch }, 'runtime settings changed');
          return structuredClone(settings);
        }
      } finally {
        release();
      }
    },

    follow(intervalMs) {
      let busy = false;
      const timer = setInterval(() => {
        if (busy) return;
        busy = true;
        // The store being down only delays the change: the next poll reads it.
        void changes
          .acquire([RECORD_ID])
          .then(async (release) => {
            try {
              await refresh();
            } finally {
              release();
            }
          })
          .catch(() => undefined)
          .finally(() => (busy = false));
      }, intervalMs);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}

/** The query service with the current defaults filled into every query that leaves them out. */
export function withQueryDefaults(query: QueryService, current: () => RuntimeSettings['query']): QueryService {
  const fill = (input: QueryInput): QueryInput => {
    const d = current();
    return {
      ...input,
      mode: input.mode ?? d.default_mode,
      enable_rerank: input.enable_rerank ?? d.enable_rerank,
      rerank_top_k: input.rerank_top_k ?? d.rerank_top_k,
    };
  };
  return {
    answer: (scope: Scope, input, signal) => query.answer(scope, fill(input), signal),
    stream: (scope: Scope, input) => query.stream(scope, fill(input)),
  };
}

/** The chat service with the same defaults; a continued conversation keeps its own mode. */
export function withChatDefaults(chat: ChatService, current: () => RuntimeSettings['query']): ChatService {
  const fill = (input: ChatInput): ChatInput => {
    const d = current();
    return {
      ...input,
      mode: input.mode ?? (input.conversation_id ? undefined : d.default_mode),
      enable_rerank: input.enable_rerank ?? d.enable_rerank,
      rerank_top_k: input.rerank_top_k ?? d.rerank_top_k,
    };
  };
  return {
    complete: (scope: Scope, input) => chat.complete(scope, fill(input)),
    stream: (scope: Scope, input) => chat.stream(scope, fill(input)),
  };
}
