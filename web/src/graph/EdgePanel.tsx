import { useState } from 'react';
import { apiUrl, getJson } from '../api/client';
import type { Provenance } from '../api/types';
import { ChunkDialog } from '../ui/ChunkDialog';
import { ErrorNote, Spinner } from '../ui/feedback';
import { useResource } from '../ui/hooks';
import type { EdgeAttributes } from './model';
import { Panel } from './Panel';

export interface EdgeEnd {
  id: string;
  name: string;
}

interface Props {
  edge: EdgeAttributes;
  source: EdgeEnd;
  target: EdgeEnd;
  onSelect: (entityId: string) => void;
  onClose: () => void;
}

interface Evidence {
  chunkId: string;
  documentName: string;
  lines: string;
  sentences: string[];
}

/**
 * A relationship's detail: its type, description and keywords, and its evidence: the chunks both entities were
 * extracted from, with the sentences there that name both (else the passage naming the first).
 */
export function EdgePanel({ edge, source, target, onSelect, onClose }: Props) {
  const evidence = useResource(async (signal) => evidenceOf(source, target, signal), [source.id, target.id]);
  const [chunk, setChunk] = useState<string | null>(null);

  return (
    <Panel
      testId="edge-panel"
      label="Relationship detail"
      onClose={onClose}
      head={
        <h2 className="grow">
          {source.name} — {target.name}
        </h2>
      }
    >
      <div className="facts">
        <span>
          <span className="muted">type</span> {edge.label}
        </span>
        <span>
          <span className="muted">weight</span> {edge.weight}
        </span>
      </div>
      <p className="description">{edge.description || <span className="muted">No description.</span>}</p>
      {edge.keywords.length > 0 && (
        <div className="chips">
          {edge.keywords.map((k) => (
            <span key={k} className="chip">
              {k}
            </span>
          ))}
        </div>
      )}
      <div className="row">
        <button onClick={() => onSelect(source.id)}>{source.name}</button>
        <button onClick={() => onSelect(target.id)}>{target.name}</button>
      </div>
      <h3>Evidence</h3>
      {evidence.loading && !evidence.data && <Spinner label="Loading evidence…" />}
      <ErrorNote error={evidence.error} />
      {evidence.data && evidence.data.length === 0 && (
        <div className="muted small">No chunk names both entities; the relationship was merged from separate passages.</div>
      )}
      {evidence.data && evidence.data.length > 0 && (
        <div className="provenance" data-testid="edge-evidence">
          {evidence.data.map((e) => (
            <button key={e.chunkId} className="source-chunk" onClick={() => setChunk(e.chunkId)} title="Open the chunk">
              <span className="muted small">
                {e.documentName} · lines {e.lines}
              </span>
              {e.sentences.map((sentence, i) => (
                <span key={i} className="quote">
                  {sentence}
                </span>
              ))}
            </button>
          ))}
        </div>
      )}
      {chunk && <ChunkDialog chunkId={chunk} highlight={target.name} onClose={() => setChunk(null)} />}
    </Panel>
  );
}

async function evidenceOf(source: EdgeEnd, target: EdgeEnd, signal: AbortSignal): Promise<Evidence[]> {
  const provenance = (id: string) => getJson<Provenance>(apiUrl('/api/v1/entities/{entity_id}/provenance', { entity_id: id }), signal);
  const [from, to] = await Promise.all([provenance(source.id), provenance(target.id)]);
  const shared = new Set(to.sources.flatMap((s) => s.chunks.map((c) => c.chunk_id)));
  const names = [target.name.toLowerCase(), target.id.toLowerCase().replace(/_/g, ' ')];
  return from.sources.flatMap((s) =>
    s.chunks
      .filter((c) => shared.has(c.chunk_id))
      .map((c) => {
        const passage = c.source_text ?? '';
        const both = sentencesOf(passage).filter((sentence) => names.some((name) => sentence.toLowerCase().includes(name)));
        return {
          chunkId: c.chunk_id,
          documentName: s.document_name,
          lines: `${c.start_line ?? '?'}–${c.end_line ?? '?'}`,
          sentences: both.length > 0 ? both : passage ? [passage] : [],
        };
      }),
  );
}

function sentencesOf(text: string): string[] {
  return (text.match(/[^.!?\n]+[.!?]?/g) ?? []).map((s) => s.trim()).filter(Boolean);
}
