import { apiUrl, getJson } from '../api/client';
import type { ChunkDetail } from '../api/types';
import { Link, graphHref } from './Link';
import { ErrorNote, Spinner } from './feedback';
import { useResource } from './hooks';
import { Modal } from './Modal';

/** A chunk's text with its line numbers, the entities extracted from it and the extraction record (`/chunks/{id}`). */
export function ChunkDialog({ chunkId, highlight, onClose }: { chunkId: string; highlight?: string; onClose: () => void }) {
  const { data, error, loading } = useResource(
    (signal) => getJson<ChunkDetail>(apiUrl('/api/v1/chunks/{chunk_id}', { chunk_id: chunkId }), signal),
    [chunkId],
  );

  return (
    <Modal label="Chunk" onClose={onClose} testId="chunk-dialog">
      <div className="dialog-head">
        <strong>Chunk {data ? `${data.index} of ` : ''}</strong>
        {data && <Link href={`/documents/${encodeURIComponent(data.document_id)}`}>{data.document_name}</Link>}
        <span className="grow" />
        <button className="link" onClick={onClose} aria-label="Close">
          ×
        </button>
      </div>
      {loading && <Spinner label="Loading chunk…" />}
      <ErrorNote error={error} />
      {data && (
        <>
          <div className="muted small">
            lines {data.start_line}–{data.end_line} · {data.token_count} tokens · {data.chunk_id}
          </div>
          <pre className="chunk-text">
            {data.content.split('\n').map((line, i) => (
              <div key={i} className={highlight && line.toLowerCase().includes(highlight.toLowerCase()) ? 'line hit' : 'line'}>
                <span className="line-no">{data.start_line + i}</span>
                <span>{line || ' '}</span>
              </div>
            ))}
          </pre>
          {data.entities.length > 0 && (
            <div className="chips">
              {data.entities.map((e) => (
                <Link key={e.id} href={graphHref(e.id)} className="chip" title={e.description}>
                  {e.name} <span className="muted">{e.entity_type}</span>
                </Link>
              ))}
            </div>
          )}
          {data.extraction_metadata && (
            <div className="muted small">
              extracted by {data.extraction_metadata.llm_model ?? 'unknown model'} in {data.extraction_metadata.extraction_passes} pass(es),{' '}
              {data.extraction_metadata.gleaning_passes} gleaning
            </div>
          )}
        </>
      )}
    </Modal>
  );
}
