import type { Scope } from '../domain/types';
import type { TokenUsage } from '../llm/ports';
import type { IngestDeps } from './deps';
import type { CallKind } from './call-tally';

/**
 * A document's content history (KV namespace `document_history`, key = document id): one entry per content update,
 * newest last, with what the update cost and what it reused (docs/api.md §4.2). The community reports an update
 * caused are written later, by the workspace's community run: their calls are charged to the update in a record of
 * their own (namespace `document_report_calls`, same key, by update id), which the history adds to the entry when
 * read, so that the run never rewrites an entry the update is still appending. Both are deleted with the document.
 */

export const HISTORY_NAMESPACE = 'document_history';
export const REPORT_CALLS_NAMESPACE = 'document_report_calls';
/** Entries kept per document (the oldest go first). */
export const HISTORY_LIMIT = 50;

export interface UpdateAccount {
  chunks_total: number;
  chunks_reused: number;
  chunks_extracted: number;
  chunks_removed: number;
  /** Provider calls, all kinds. */
  llm_calls: number;
  llm_calls_by_kind: Record<CallKind, number>;
  usage: TokenUsage;
  /** Records (entities and relationships) given a new LLM summary. */
  records_resummarised: number;
  /** Entities new to the graph that resolution checked. */
  entities_resolved: number;
  /** Chunks embedded (those whose text is new). */
  chunks_embedded: number;
  /** Entities and relationships re-embedded (their text or documents changed). */
  records_reembedded: number;
}

export interface HistoryEntry extends UpdateAccount {
  /** The version the update made. */
  version: number;
  at: string;
  processing_time_ms: number;
  /** The update's id (DocumentRevision.id): what the community runs charge their report calls to. */
  revision_id?: string;
}

/** Community report calls charged to one update, and their tokens. */
export interface ReportCharge {
  calls: number;
  usage: TokenUsage;
}

type Deps = Pick<IngestDeps, 'stores'>;

async function readEntries(deps: Deps, scope: Scope, documentId: string): Promise<HistoryEntry[]> {
  return (await deps.stores.kv.get<HistoryEntry[]>(scope, HISTORY_NAMESPACE, documentId)) ?? [];
}

/** The entries, each with the community report calls charged to its update so far. */
export async function readHistory(deps: Deps, scope: Scope, documentId: string): Promise<HistoryEntry[]> {
  const [entries, charges] = await Promise.all([
    readEntries(deps, scope, documentId),
    deps.stores.kv.get<Record<string, ReportCharge>>(scope, REPORT_CALLS_NAMESPACE, documentId),
  ]);
  return entries.map((entry) => {
    const charge = entry.revision_id ? charges?.[entry.revision_id] : undefined;
    if (!charge) return entry;
    return {
      ...entry,
      llm_calls: entry.llm_calls + charge.calls,
      llm_calls_by_kind: { ...entry.llm_calls_by_kind, community_report: entry.llm_calls_by_kind.community_report + charge.calls },
      usage: {
        input_tokens: entry.usage.input_tokens + charge.usage.input_tokens,
        output_tokens: entry.usage.output_tokens + charge.usage.output_tokens,
      },
    };
  });
}

/**
 * Adds community report calls to what is charged to updates of one document. Only community runs write these
 * records, one run per workspace at a time; nothing is written for a document deleted meanwhile.
 */
export async function chargeReportCalls(deps: Deps, scope: Scope, documentId: string, shares: Map<string, ReportCharge>): Promise<void> {
  if (!(await deps.stores.documents.get(scope, documentId))) return;
  const charges = (await deps.stores.kv.get<Record<string, ReportCharge>>(scope, REPORT_CALLS_NAMESPACE, documentId)) ?? {};
  for (const [revisionId, share] of shares) {
    const was = charges[revisionId] ?? { calls: 0, usage: { input_tokens: 0, output_tokens: 0 } };
    charges[revisionId] = {
      calls: was.calls + share.calls,
      usage: {
        input_tokens: was.usage.input_tokens + share.usage.input_tokens,
        output_tokens: was.usage.output_tokens + share.usage.output_tokens,
      },
    };
  }
  await deps.stores.kv.set(scope, REPORT_CALLS_NAMESPACE, documentId, charges);
}

/** Appends an entry; the caller holds the document's update lock, so entries of one document never race. */
export async function appendHistory(deps: Deps, scope: Scope, documentId: string, entry: HistoryEntry): Promise<void> {
  const entries = [...(await readEntries(deps, scope, documentId)), entry].slice(-HISTORY_LIMIT);
  await deps.stores.kv.set(scope, HISTORY_NAMESPACE, documentId, entries);
}

export async function deleteHistory(deps: Deps, scope: Scope, documentId: string): Promise<void> {
  await deps.stores.kv.delete(scope, HISTORY_NAMESPACE, [documentId]);
  await deps.stores.kv.delete(scope, REPORT_CALLS_NAMESPACE, [documentId]);
}
