import type { ReactNode } from 'react';
import type { Source } from '../api/types';
import { Link } from '../ui/Link';

/** Answer text with its `[n]` citations turned into buttons that open the cited source. */
export function AnswerText({ text, sources, onCite }: { text: string; sources: Source[]; onCite: (source: Source) => void }) {
  const byRef = new Map(sources.map((s) => [s.reference_id, s]));
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(/\[(\d+)\]/g)) {
    const source = byRef.get(Number(match[1]));
    if (!source) continue;
    parts.push(text.slice(last, match.index));
    parts.push(
      <button
        key={match.index}
        className="cite"
        onClick={() => onCite(source)}
        title={source.source_type === 'chunk' ? source.document_title : source.id}
      >
        {match[1]}
      </button>,
    );
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return <>{parts}</>;
}

/** The sources beside an answer: chunks (open the chunk) and entities (with type and degree). */
export function SourceList({ sources, onOpen }: { sources: Source[]; onOpen: (source: Source) => void }) {
  const chunks = sources.filter((s) => s.source_type === 'chunk');
  const entities = sources.filter((s) => s.source_type === 'entity');
  return (
    <div className="sources" data-testid="sources">
      <h3>Sources ({chunks.length})</h3>
      {chunks.length === 0 && <div className="muted small">No chunks were retrieved.</div>}
      <ul>
        {chunks.map((s) =>
          s.source_type === 'chunk' ? (
            <li key={s.id}>
              <button className="source-chunk" onClick={() => onOpen(s)} data-testid="source-chunk">
                <span>
                  <span className="ref">[{s.reference_id}]</span> <strong>{s.document_title}</strong>{' '}
                  <span className="muted small">
                    lines {s.start_line}–{s.end_line} · score {s.score.toFixed(3)}
                    {s.rerank_score !== undefined && ` · rerank ${s.rerank_score.toFixed(3)}`}
                  </span>
                </span>
                <span className="quote">{s.snippet}</span>
              </button>
            </li>
          ) : null,
        )}
      </ul>
      <h3>Entities ({entities.length})</h3>
      <ul className="entity-sources">
        {entities.map((s) =>
          s.source_type === 'entity' ? (
            <li key={s.id} title={s.snippet}>
              <Link href={`/graph?start=${encodeURIComponent(s.id)}`}>
                <strong>{s.id}</strong>
              </Link>{' '}
              <span className="muted small">
                [{s.reference_id}] {s.entity_type} · degree {s.degree}
              </span>
              <div className="small clamp">{s.snippet}</div>
            </li>
          ) : null,
        )}
      </ul>
    </div>
  );
}
