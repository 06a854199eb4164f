import type { Scope } from '../domain/types';
import type { TokenUsage } from '../llm/ports';
import type { IngestDeps } from './deps';
import type { CallKind } from './call-tally';

/**
 * A document's content history (KV namespace `document_history`, key = document id): one entry per content update,
 * newest last, with what the update cost and what it reused (docs/api.md §4.2). Deleted with the document.
 */

export const HISTORY_NAMESPACE = 'document_history';
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
}

type Deps = Pick<IngestDeps, 'stores'>;

export async function readHistory(deps: Deps, scope: Scope, documentId: string): Promise<HistoryEntry[]> {
  return (await deps.stores.kv.get<HistoryEntry[]>(scope, HISTORY_NAMESPACE, documentId)) ?? [];
}

/** Appends an entry; the caller holds the document's update lock, so entries of one document never race. */
export async function appendHistory(deps: Deps, scope: Scope, documentId: string, entry: HistoryEntry): Promise<void> {
  const entries = [...(await readHistory(deps, scope, documentId)), entry].slice(-HISTORY_LIMIT);
  await deps.stores.kv.set(scope, HISTORY_NAMESPACE, documentId, entries);
}

export function deleteHistory(deps: Deps, scope: Scope, documentId: string): Promise<void> {
  return deps.stores.kv.delete(scope, HISTORY_NAMESPACE, [documentId]);
}
