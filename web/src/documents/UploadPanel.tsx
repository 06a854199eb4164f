import { type DragEvent, type FormEvent, useRef, useState } from 'react';
import { apiUrl, sendJson } from '../api/client';
import type { BatchResult } from '../api/types';
import { ErrorNote, ProgressBar } from '../ui/feedback';
import { ACCEPTED, acceptedFile, uploadForm } from './upload';

interface Outcome {
  name: string;
  status: 'queued' | 'duplicate' | 'failed';
  detail: string;
  /** The stored document, whose status then replaces `queued` as it is processed. */
  documentId?: string;
}

/**
 * Adds documents: files by drag and drop or the file picker (one or many, PDF included), or pasted text. Each
 * queued file shows its document's current status (`statusOf`, from the documents list) once the list has it.
 */
export function UploadPanel({ onQueued, statusOf }: { onQueued: () => void; statusOf: (documentId: string) => string | undefined }) {
  const [dragging, setDragging] = useState(false);
  const [progress, setProgress] = useState<number | null>(null);
  const [outcomes, setOutcomes] = useState<Outcome[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [pasteOpen, setPasteOpen] = useState(false);
  const [title, setTitle] = useState('');
  const [content, setContent] = useState('');
  const [saving, setSaving] = useState(false);
  const picker = useRef<HTMLInputElement>(null);

  const upload = async (files: File[]) => {
    setError(null);
    const refused = files.filter((f) => !acceptedFile(f));
    const wanted = files.filter(acceptedFile);
    const results: Outcome[] = refused.map((f) => ({
      name: f.name,
      status: 'failed',
      detail: `not a supported file type (${ACCEPTED.join(', ')})`,
    }));
    if (wanted.length === 0) {
      setOutcomes(results);
      return;
    }
    setProgress(0);
    try {
      const form = new FormData();
      form.set('async_processing', 'true');
      if (wanted.length === 1) {
        form.set('file', wanted[0]);
        const created = await uploadForm<{ id: string; title: string }>(apiUrl('/api/v1/documents/upload'), form, setProgress);
        results.push({ name: wanted[0].name, status: 'queued', detail: created.title, documentId: created.id });
      } else {
        for (const file of wanted) form.append('files', file);
        const batch = await uploadForm<BatchResult>(apiUrl('/api/v1/documents/upload/batch'), form, setProgress);
        for (const item of batch.results) {
          results.push({
            name: item.filename,
            status: item.status === 'success' ? 'queued' : item.status,
            detail: item.status === 'duplicate' ? `already stored as ${item.duplicate_of}` : (item.error ?? ''),
            documentId: item.status === 'success' ? (item.document_id ?? undefined) : undefined,
          });
        }
      }
    } catch (err) {
      setError(err);
    } finally {
      setProgress(null);
      setOutcomes(results);
      onQueued();
    }
  };

  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    void upload([...event.dataTransfer.files]);
  };

  const savePasted = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setError(null);
    try {
      const created = await sendJson<{ id: string; title: string }>('POST', apiUrl('/api/v1/documents'), {
        title: title.trim() || undefined,
        content,
        async_processing: true,
      });
      setOutcomes([{ name: created.title, status: 'queued', detail: 'pasted text', documentId: created.id }]);
      setTitle('');
      setContent('');
      setPasteOpen(false);
      onQueued();
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="card upload">
      <div
        className={`dropzone${dragging ? ' over' : ''}`}
        data-testid="dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
        onClick={() => picker.current?.click()}
        role="button"
        tabIndex={0}
        onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && picker.current?.click()}
      >
        <strong>Drop files here</strong> or click to choose
        <div className="muted small">PDF, TXT, Markdown or JSON; several at once</div>
        <input
          ref={picker}
          type="file"
          multiple
          accept={ACCEPTED.join(',')}
          hidden
          data-testid="file-input"
          onChange={(e) => {
            void upload([...(e.target.files ?? [])]);
            e.target.value = '';
          }}
        />
      </div>
      {progress !== null && (
        <ProgressBar value={progress * 100} label={progress < 1 ? `Uploading… ${Math.round(progress * 100)}%` : 'Processing…'} />
      )}
      <div className="row">
        <button className="link" onClick={() => setPasteOpen((o) => !o)}>
          {pasteOpen ? 'Cancel pasting' : 'Paste text instead'}
        </button>
      </div>
      {pasteOpen && (
        <form className="paste" onSubmit={(e) => void savePasted(e)}>
          <input value={title} onChange={(e) => setTitle(e.target.value)} placeholder="Title (optional)" aria-label="Title" />
          <textarea
            value={content}
            onChange={(e) => setContent(e.target.value)}
            rows={6}
            placeholder="Paste the document text…"
            aria-label="Text"
          />
          <button type="submit" className="primary" disabled={!content.trim() || saving}>
            {saving ? 'Adding…' : 'Add document'}
          </button>
        </form>
      )}
      <ErrorNote error={error} onDismiss={() => setError(null)} />
      {outcomes.length > 0 && (
        <ul className="outcomes" data-testid="upload-outcomes">
          {outcomes.map((o, i) => {
            const status = (o.documentId && statusOf(o.documentId)) || o.status;
            return (
              <li key={i} className={status} data-status={status}>
                <strong>{o.name}</strong> <span className={`badge ${status}`}>{status}</span>{' '}
                <span className="muted small">{o.detail}</span>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
