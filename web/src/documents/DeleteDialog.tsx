import { useState } from 'react';
import { apiUrl, getJson, sendJson } from '../api/client';
import type { DeletionImpact } from '../api/types';
import { ErrorNote, Spinner } from '../ui/feedback';
import { useResource } from '../ui/hooks';
import { Modal } from '../ui/Modal';

/** Shows what deleting a document would remove or rewrite (`/deletion-impact`), then deletes it on confirmation. */
export function DeleteDialog({ id, title, onClose, onDeleted }: { id: string; title: string; onClose: () => void; onDeleted: () => void }) {
  const impact = useResource((signal) => getJson<DeletionImpact>(apiUrl('/api/v1/documents/{id}/deletion-impact', { id }), signal), [id]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await sendJson('DELETE', apiUrl('/api/v1/documents/{id}', { id }));
      onDeleted();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  const data = impact.data;
  return (
    <Modal label="Delete document" onClose={onClose} busy={busy} className="narrow" testId="delete-dialog">
      <h2>Delete “{title}”?</h2>
      {impact.loading && <Spinner label="Working out what goes with it…" />}
      <ErrorNote error={impact.error} />
      {data && (
        <table className="impact" data-testid="deletion-impact">
          <tbody>
            <tr>
              <th>Entities</th>
              <td>
                <strong>{data.entities_to_delete}</strong> deleted, <strong>{data.entities_to_update}</strong> rewritten from their other
                sources
              </td>
            </tr>
            <tr>
              <th>Relationships</th>
              <td>
                <strong>{data.relationships_to_delete}</strong> deleted, <strong>{data.relationships_to_update}</strong> rewritten
              </td>
            </tr>
          </tbody>
        </table>
      )}
      <p className="muted small">The document, its chunks and their vectors are removed. This cannot be undone.</p>
      <ErrorNote error={error} />
      <div className="row end">
        <button onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button className="danger" onClick={() => void confirm()} disabled={busy || !data}>
          {busy ? <Spinner label="Deleting…" /> : 'Delete'}
        </button>
      </div>
    </Modal>
  );
}
