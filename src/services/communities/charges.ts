import type { ReportChargeSummary } from '../../domain/communities';
import type { Scope } from '../../domain/types';
import type { GraphChangeBatch } from '../../graph/events';
import { type CallTally, totalCalls } from '../../ingest/call-tally';
import { chargeReportCalls, type ReportCharge } from '../../ingest/history';
import type { Stores } from '../../store/ports';

/**
 * Community report calls charged to the content updates that caused them (docs/api.md §4.2). A content update names
 * itself in the graph changes it writes (GraphChangeBatch.revision); the updates named since a workspace's last run
 * began are that workspace's causes, and the next run takes them. The run's calls and tokens are split evenly over
 * its causes (whole calls; the remainder one each to the first named), so the updates' shares add up to exactly what
 * the run made. A run that covers no content update (only uploads, deletions or edits) is charged to none.
 */

export interface Cause {
  document_id: string;
  version: number;
  revision_id: string;
}

export class PendingCauses {
  private readonly byWorkspace = new Map<string, Map<string, Cause>>();

  /** Notes the content update a graph change belongs to. */
  note(key: string, batch: GraphChangeBatch): void {
    if (!batch.revision || !batch.document_id) return;
    let causes = this.byWorkspace.get(key);
    if (!causes) this.byWorkspace.set(key, (causes = new Map()));
    if (!causes.has(batch.revision.id)) {
      causes.set(batch.revision.id, { document_id: batch.document_id, version: batch.revision.version, revision_id: batch.revision.id });
    }
  }

  /** The workspace's causes, removed: a run covers them. */
  take(key: string): Cause[] {
    const causes = [...(this.byWorkspace.get(key)?.values() ?? [])];
    this.byWorkspace.delete(key);
    return causes;
  }

  /** Causes of a run that failed: the next run covers them again (ahead of those noted meanwhile). */
  restore(key: string, causes: Cause[]): void {
    const later = this.byWorkspace.get(key);
    const merged = new Map(causes.map((c) => [c.revision_id, c]));
    for (const [id, c] of later ?? []) merged.set(id, c);
    if (merged.size) this.byWorkspace.set(key, merged);
  }

  clear(): void {
    this.byWorkspace.clear();
  }
}

/** `total` in `parts` whole shares that add up to it, the larger ones first. */
function split(total: number, parts: number): number[] {
  const base = Math.floor(total / parts);
  return Array.from({ length: parts }, (_, i) => base + (i < total % parts ? 1 : 0));
}

/** Writes each cause's share of the run's calls; what was charged, by cause. */
export async function chargeCauses(
  deps: { stores: Stores },
  scope: Scope,
  causes: Cause[],
  tally: CallTally,
): Promise<ReportChargeSummary[]> {
  const calls = totalCalls(tally);
  if (!causes.length) return [];
  const shares = split(calls, causes.length);
  const input = split(tally.usage.input_tokens, causes.length);
  const output = split(tally.usage.output_tokens, causes.length);
  const byDocument = new Map<string, Map<string, ReportCharge>>();
  causes.forEach((cause, i) => {
    const charges = byDocument.get(cause.document_id) ?? new Map<string, ReportCharge>();
    charges.set(cause.revision_id, { calls: shares[i], usage: { input_tokens: input[i], output_tokens: output[i] } });
    byDocument.set(cause.document_id, charges);
  });
  if (calls > 0) {
    for (const [documentId, charges] of byDocument) await chargeReportCalls(deps, scope, documentId, charges);
  }
  return causes.map((c, i) => ({ document_id: c.document_id, version: c.version, llm_calls: shares[i] }));
}
