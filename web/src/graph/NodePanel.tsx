import { useState } from 'react';
import { apiUrl, getJson } from '../api/client';
import type { EntityDetail, Provenance } from '../api/types';
import { ChunkDialog } from '../ui/ChunkDialog';
import { ErrorNote, Spinner } from '../ui/feedback';
import { useResource } from '../ui/hooks';
import { useCanEdit } from '../api/role';
import { typeColor } from './colors';
import { EntityActions } from './EntityActions';
import { Panel } from './Panel';

interface Props {
  id: string;
  /** The name drawn in the graph, shown until the detail arrives. */
  label?: string;
  onSelect: (id: string) => void;
  onExpand: (id: string) => void;
  onClose: () => void;
  /** Opens a relationship's detail and evidence; false when it is not drawn. */
  onSelectEdge: (id: string) => boolean;
  expanding: boolean;
}

/** A node's detail: description, type, degree, relationships, and provenance down to source lines. */
export function NodePanel({ id, label, onSelect, onExpand, onClose, onSelectEdge, expanding }: Props) {
  const entity = useResource((signal) => getJson<EntityDetail>(apiUrl('/api/v1/graph/entities/{id}', { id }), signal), [id]);
  const provenance = useResource(
    (signal) => getJson<Provenance>(apiUrl('/api/v1/entities/{entity_id}/provenance', { entity_id: id }), signal),
    [id],
  );
  const [chunk, setChunk] = useState<string | null>(null);
  const canEdit = useCanEdit();

  const e = entity.data;
  const names = new Map((provenance.data?.related_entities ?? []).map((r) => [r.entity_id, r.entity_name]));

  return (
    <Panel
      testId="node-panel"
      label="Entity detail"
      onClose={onClose}
      head={
        <>
          <span className="swatch big" style={{ background: typeColor(e?.entity_type ?? '') }} />
          <h2 className="grow">{e?.name ?? label ?? id}</h2>
        </>
      }
    >
      {entity.loading && !e && <Spinner label="Loading…" />}
      <ErrorNote error={entity.error} />
      {e && (
        <>
          <div className="facts">
            <span>
              <span className="muted">type</span> {e.entity_type}
            </span>
            <span>
              <span className="muted">degree</span> {e.degree}
            </span>
            <span>
              <span className="muted">sources</span> {e.source_count}
            </span>
          </div>
          <p className="description">{e.description || <span className="muted">No description.</span>}</p>
          <div className="row">
            <button onClick={() => onExpand(id)} disabled={expanding}>
              {expanding ? <Spinner label="Expanding…" /> : 'Expand neighbourhood'}
            </button>
          </div>
          {canEdit && (
            <EntityActions
              entity={e}
              names={names}
              onMoved={onSelect}
              onDeleted={onClose}
              onChanged={() => {
                entity.reload();
                provenance.reload();
              }}
            />
          )}
          <h3>Relationships ({e.relationships.length})</h3>
          <ul className="relations">
            {e.relationships.map((r) => {
              const other = r.source === id ? r.target : r.source;
              return (
                <li key={r.id}>
                  <button className="link" onClick={() => onSelect(other)}>
                    {names.get(other) ?? other}
                  </button>{' '}
                  <span className="muted small">{r.relation_type}</span>{' '}
                  <button
                    className="link small"
                    onClick={() => onSelectEdge(r.id)}
                    aria-label={`Evidence for ${names.get(other) ?? other}`}
                  >
                    evidence
                  </button>
                  {r.description && <div className="small">{r.description}</div>}
                </li>
              );
            })}
          </ul>
        </>
      )}
      <h3>Provenance</h3>
      {provenance.loading && !provenance.data && <Spinner label="Loading provenance…" />}
      <ErrorNote error={provenance.error} />
      {provenance.data && (
        <div className="provenance" data-testid="provenance">
          <div className="muted small">extracted from {provenance.data.total_extraction_count} chunk(s)</div>
          {provenance.data.sources.map((source) => (
            <div key={source.document_id} className="source-doc">
              <div className="strong">{source.document_name}</div>
              {source.chunks.map((c) => (
                <button key={c.chunk_id} className="source-chunk" onClick={() => setChunk(c.chunk_id)} title="Open the chunk">
                  <span className="muted small">
                    lines {c.start_line ?? '?'}–{c.end_line ?? '?'}
                  </span>
                  <span className="quote">{c.source_text ?? c.chunk_id}</span>
                </button>
              ))}
            </div>
          ))}
        </div>
      )}
      {chunk && <ChunkDialog chunkId={chunk} highlight={e?.name} onClose={() => setChunk(null)} />}
    </Panel>
  );
}
