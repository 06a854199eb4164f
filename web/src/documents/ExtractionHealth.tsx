import type { DocumentDetail, DocumentItem } from '../api/types';

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
export function ExtractionCard({ extraction }: { extraction: DocumentDetail['extraction'] }) {
  if (!extraction) return null;
  const dropped = Object.entries(extraction.dropped);
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
        <dt>Records</dt>
        <dd>
          {extraction.records_kept} kept of {extraction.records_parsed} written
          {extraction.records_dropped > 0 && ` · ${extraction.records_dropped} dropped`}
        </dd>
        {dropped.length > 0 && (
          <>
            <dt>Dropped</dt>
            <dd>{dropped.map(([reason, n]) => `${n} ${reason.replace(/_/g, ' ')}`).join(', ')}</dd>
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
