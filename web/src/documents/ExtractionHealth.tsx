import { apiUrl, getJson } from '../api/client';
import type { DocumentDetail, DocumentItem, WorkspaceStats } from '../api/types';
import { useResource } from '../ui/hooks';

/** A badge in the documents list when a document's extraction has warnings; their messages on hover. */
export function WarningsBadge({ warnings }: { warnings: DocumentItem['warnings'] }) {
  if (!warnings.length) return null;
  return (
    <span className="badge warnings" data-testid="document-warnings" title={warnings.map((w) => w.message).join('\n')}>
      {warnings.length} warning{warnings.length === 1 ? '' : 's'}
    </span>
  );
}

/** How the model's extraction went: warnings, records kept and dropped by reason, cut or looping chunks. */
export function ExtractionCard({ extraction, model }: { extraction: DocumentDetail['extraction']; model?: string | null }) {
  if (!extraction) return null;
  const dropped = Object.keys(extraction.dropped);
  const chunks = (label: string, indexes: number[]) =>
    indexes.length > 0 && (
      <>
        <dt>{label}</dt>
        <dd>{indexes.join(', ')}</dd>
      </>
    );
  return (
    <div className="card" data-testid="extraction-health">
      <h3>Extraction</h3>
      {extraction.warnings.length > 0 && (
        <ul className="warnings">
          {extraction.warnings.map((w) => (
            <li key={w.code} data-code={w.code}>
              {w.message}
            </li>
          ))}
        </ul>
      )}
      <dl className="meta">
        {model && (
          <>
            <dt>Model</dt>
            <dd>{model}</dd>
          </>
        )}
        <dt>Records</dt>
        <dd>
          {extraction.records_kept} kept of {extraction.records_parsed} written
          {extraction.records_dropped > 0 && ` · ${extraction.records_dropped} dropped`}
        </dd>
        {dropped.length > 0 && (
          <>
            <dt>Dropped</dt>
            <dd>{byReason(extraction.dropped)}</dd>
          </>
        )}
        <dt>Chunks with records</dt>
        <dd>
          {extraction.chunks_with_records} of {extraction.chunks}
        </dd>
        {chunks('Cut at the limit', extraction.truncated_chunks)}
        {chunks('Repeating', extraction.looping_chunks)}
        {chunks('No completion marker', extraction.unmarked_chunks)}
        {chunks('Timed out', extraction.timed_out_chunks)}
        <dt>Passes</dt>
        <dd>
          {extraction.passes}
          {extraction.prompt_version !== null && ` · prompt v${extraction.prompt_version}`}
        </dd>
      </dl>
    </div>
  );
}

/** "2 placeholder, 1 not in text". */
function byReason(dropped: Record<string, number>): string {
  return Object.entries(dropped)
    .map(([reason, n]) => `${n} ${reason.replace(/_/g, ' ')}`)
    .join(', ');
}

/**
 * The workspace's extraction health over its documents' last runs (`/workspaces/:id/stats` `extraction`), shown
 * above the documents list when something was dropped, cut or failed; nothing when the server does not report it.
 */
export function ExtractionSummary({ workspaceId, refresh }: { workspaceId: string; refresh: string }) {
  const stats = useResource(
    (signal) => getJson<WorkspaceStats>(apiUrl('/api/v1/workspaces/{id}/stats', { id: workspaceId }), signal).catch(() => null),
    [workspaceId, refresh],
  );
  const x = stats.data?.extraction;
  if (!x || (x.documents_with_warnings === 0 && x.documents_failed_extraction === 0 && x.records_dropped === 0)) return null;
  const parts = [
    x.documents_with_warnings > 0 && `${x.documents_with_warnings} document${x.documents_with_warnings === 1 ? '' : 's'} with warnings`,
    x.documents_failed_extraction > 0 &&
      `${x.documents_failed_extraction} failed (the model yielded no record grounded in the text, or a chunk failed)`,
    x.records_parsed > 0 &&
      `${x.records_kept} of ${x.records_parsed} records kept` +
        (x.records_dropped > 0 ? `, ${x.records_dropped} dropped (${byReason(x.dropped)})` : ''),
    x.truncated_chunks > 0 && `${x.truncated_chunks} chunk output${x.truncated_chunks === 1 ? '' : 's'} cut at the limit`,
    x.timed_out_chunks > 0 && `${x.timed_out_chunks} timed out`,
  ].filter(Boolean);
  return (
    <div className="note info" data-testid="extraction-summary">
      <span>
        <strong>Extraction health:</strong> {parts.join(' · ')}
      </span>
    </div>
  );
}
