import { type MouseEvent, useMemo } from 'react';
import type { Source } from '../api/types';
import { Link, graphHref } from '../ui/Link';
import { highlightHref } from '../graph/highlight';
import { answerHtml } from './markdown';

/** Answer text rendered from Markdown, its `[n]` citations links that open the cited source. */
export function AnswerText({ text, sources, onCite }: { text: string; sources: Source[]; onCite: (source: Source) => void }) {
  const byRef = useMemo(() => new Map(sources.map((s) => [s.reference_id, s])), [sources]);
  const html = useMemo(
    () =>
      answerHtml(text, (reference) => {
        const source = byRef.get(reference);
        return source && { title: sourceTitle(source) };
      }),
    [text, byRef],
  );
  const click = (event: MouseEvent<HTMLDivElement>) => {
    const link = (event.target as HTMLElement).closest('a[data-cite]');
    const source = link && byRef.get(Number(link.getAttribute('data-cite')));
    if (!source) return;
    event.preventDefault();
    onCite(source);
  };
  // The HTML comes from answerHtml: raw HTML in the answer is escaped and the result sanitised.
  return <div className="markdown" onClick={click} dangerouslySetInnerHTML={{ __html: html }} />;
}

/** What a source is called: a chunk's document title, an entity's name. */
export function sourceTitle(source: Source): string {
  return source.source_type === 'chunk' ? source.document_title : (source.name ?? source.id);
}

/** The sources beside an answer: chunks (open the chunk) and entities (with type and degree). */
export function SourceList({ sources, onOpen }: { sources: Source[]; onOpen: (source: Source) => void }) {
  const chunks = sources.filter((s) => s.source_type === 'chunk');
  const entities = sources.filter((s) => s.source_type === 'entity');
  return (
    <div className="sources" data-testid="sources">
      <h2>Sources ({chunks.length})</h2>
      {chunks.length === 0 && <div className="muted small">No chunks were retrieved.</div>}
      <ul>
        {chunks.map((s) =>
          s.source_type === 'chunk' ? (
            <li key={s.id} id={`source-${s.reference_id}`}>
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
      <div className="row">
        <h2 className="grow">Entities ({entities.length})</h2>
        {entities.length > 0 && (
          <Link
            className="button small"
            href={highlightHref(
              entities.map((s) => s.id),
              'an answer',
            )}
            data-testid="show-in-graph"
          >
            Show in graph
          </Link>
        )}
      </div>
      <ul className="entity-sources">
        {entities.map((s) =>
          s.source_type === 'entity' ? (
            <li key={s.id} id={`source-${s.reference_id}`} title={s.snippet} data-testid="source-entity">
              <Link href={graphHref(s.id)}>
                <strong>{sourceTitle(s)}</strong>
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
