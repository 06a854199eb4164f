import { useState } from 'react';
import { apiUrl, getJson, sendJson } from '../api/client';
import type { DocumentDetail, DocumentLineage, DocumentMetadata, FailedChunks } from '../api/types';
import { navigate } from '../shell/router';
import { ChunkDialog } from '../ui/ChunkDialog';
import { Empty, ErrorNote, Spinner } from '../ui/feedback';
import { useAction, useResource } from '../ui/hooks';
import { Link, graphHref } from '../ui/Link';
import { formatDuration } from '../ui/format';
import { typeColor } from '../graph/colors';
import { highlightHref } from '../graph/highlight';
import { DeleteDialog } from './DeleteDialog';
import { ExtractionCard, WarningsBadge } from './ExtractionHealth';

/** One document: metadata, its chunks with line ranges, the entities drawn from each, failed chunks and actions. */
export function DocumentDetailPage({ id }: { id: string }) {
  const doc = useResource(
    async (signal) => {
      const [detail, metadata, lineage] = await Promise.all([
        getJson<DocumentDetail>(apiUrl('/api/v1/documents/{id}', { id }), signal),
        getJson<DocumentMetadata>(apiUrl('/api/v1/documents/{id}/metadata', { id }), signal),
        getJson<DocumentLineage>(apiUrl('/api/v1/documents/{document_id}/lineage', { document_id: id }), signal),
      ]);
      const failed =
        detail.status === 'failed'
          ? await getJson<FailedChunks>(apiUrl('/api/v1/documents/{id}/failed-chunks', { id }), signal).catch(() => null)
          : null;
      return { detail, metadata, lineage, failed };
    },
    [id],
  );
  const [deleting, setDeleting] = useState(false);
  const [chunk, setChunk] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const action = useAction();

  if (doc.loading && !doc.data) return <Spinner label="Loading document…" />;
  if (!doc.data)
    return (
      <>
        <ErrorNote error={doc.error} />
        <Link href="/documents">Back to documents</Link>
      </>
    );
  const { detail, metadata, lineage, failed } = doc.data;
  const entitiesByChunk = new Map<string, DocumentLineage['entities']>();
  for (const e of lineage.entities) for (const c of e.chunk_ids) entitiesByChunk.set(c, [...(entitiesByChunk.get(c) ?? []), e]);

  return (
    <div className="document-detail">
      <div className="toolbar">
        <Link href="/documents">← Documents</Link>
        <h1 className="grow">{detail.title}</h1>
        <span className={`badge ${detail.status}`}>{detail.status}</span>
        <WarningsBadge warnings={detail.warnings} />
        {detail.status === 'failed' && (
          <button
            onClick={() =>
              void action.run(async () => {
                const r = await sendJson<{ message: string }>('POST', apiUrl('/api/v1/documents/{id}/retry-chunks', { id }));
                setNotice(r.message);
                doc.reload();
              })
            }
            disabled={action.busy}
          >
            Retry failed chunks
          </button>
        )}
        <button className="danger" onClick={() => setDeleting(true)}>
          Delete…
        </button>
      </div>
      {notice && <div className="note info">{notice}</div>}
      <ErrorNote error={action.error ?? doc.error} />
      {detail.error && <div className="note error">{detail.error}</div>}
      <div className="card">
        <dl className="meta">
          <dt>Type</dt>
          <dd>{metadata.document_type}</dd>
          <dt>File</dt>
          <dd>{metadata.file_path || '—'}</dd>
          <dt>Size</dt>
          <dd>{metadata.file_size_bytes.toLocaleString()} bytes</dd>
          {metadata.page_count !== undefined && (
            <>
              <dt>Pages</dt>
              <dd>{metadata.page_count}</dd>
            </>
          )}
          <dt>Chunks</dt>
          <dd>{detail.chunk_count}</dd>
          <dt>Entities</dt>
          <dd>{detail.entity_count}</dd>
          <dt>Relationships</dt>
          <dd>{detail.relationship_count}</dd>
          <dt>Models</dt>
          <dd>
            {metadata.llm_model ?? '—'} / {metadata.embedding_model ?? '—'}
          </dd>
          <dt>Added</dt>
          <dd>{new Date(detail.created_at).toLocaleString()}</dd>
          <dt>Processed</dt>
          <dd>
            {detail.processed_at
              ? `${new Date(detail.processed_at).toLocaleString()} in ${formatDuration(detail.processing_time_ms)}`
              : '—'}
          </dd>
          <dt>Checksum</dt>
          <dd className="mono small">{metadata.sha256_checksum}</dd>
          {Object.keys(metadata.custom).length > 0 && (
            <>
              <dt>Metadata</dt>
              <dd className="mono small">{JSON.stringify(metadata.custom)}</dd>
            </>
          )}
        </dl>
      </div>
      <ExtractionCard extraction={detail.extraction} model={metadata.llm_model} />
      {failed && failed.failed_chunks.length > 0 && (
        <div className="card">
          <h3>Failed chunks ({failed.total})</h3>
          <ul>
            {failed.failed_chunks.map((c) => (
              <li key={c.chunk_id}>
                chunk {c.index}: <span className="error-text">{c.error ?? 'failed'}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      <div className="row">
        <h3 className="grow">Lineage: chunks and the entities drawn from them</h3>
        {lineage.entities.length > 0 && (
          <Link
            className="button small"
            href={highlightHref(
              lineage.entities.map((e) => e.entity_id),
              `“${detail.title}”`,
            )}
            data-testid="show-subgraph"
          >
            Show its subgraph
          </Link>
        )}
      </div>
      {lineage.chunks.length === 0 && <Empty title="No chunks yet">The document has not been chunked yet.</Empty>}
      <div className="lineage">
        {lineage.chunks.map((c) => (
          <div key={c.chunk_id} className="card lineage-chunk">
            <button className="link" onClick={() => setChunk(c.chunk_id)}>
              chunk {c.chunk_index} · lines {c.start_line}–{c.end_line} · {c.tokens} tokens
            </button>
            <div className="quote small">{c.content_preview}</div>
            <div className="chips">
              {(entitiesByChunk.get(c.chunk_id) ?? []).map((e) => (
                <Link key={e.entity_id} href={graphHref(e.entity_id)} className="chip" title={`${e.entity_type}: open in the graph`}>
                  <span className="swatch" style={{ background: typeColor(e.entity_type) }} />
                  {e.entity_name}
                </Link>
              ))}
            </div>
          </div>
        ))}
      </div>
      {chunk && <ChunkDialog chunkId={chunk} onClose={() => setChunk(null)} />}
      {deleting && (
        <DeleteDialog id={id} title={detail.title} onClose={() => setDeleting(false)} onDeleted={() => navigate('/documents')} />
      )}
    </div>
  );
}
