import { useCallback, useState } from 'react';
import { apiUrl, getJson, sendJson } from '../api/client';
import type { SavedView, SavedViewSettings } from '../api/types';
import { ErrorNote } from '../ui/feedback';

/** The caller's named views of the graph (kept by the service per user and workspace): save, open, delete. */
export function SavedViews({ currentView, onOpen }: { currentView: () => SavedViewSettings; onOpen: (view: SavedViewSettings) => void }) {
  const [views, setViews] = useState<SavedView[] | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    try {
      setViews((await getJson<{ views: SavedView[] }>(apiUrl('/api/v1/graph/views'))).views);
    } catch (err) {
      setError(err);
    }
  }, []);

  const act = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      await load();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <details className="menu" onToggle={(e) => e.currentTarget.open && void load()}>
      <summary>Views</summary>
      <div className="menu-items card views-menu" data-testid="saved-views">
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            void act(async () => {
              await sendJson('POST', apiUrl('/api/v1/graph/views'), { name: name.trim(), view: currentView() });
              setName('');
            });
          }}
        >
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-label="View name"
            placeholder="name of this view"
            maxLength={100}
          />
          <button type="submit" disabled={busy || !name.trim()}>
            Save view
          </button>
        </form>
        <ErrorNote error={error} onDismiss={() => setError(null)} />
        {views && views.length === 0 && <p className="muted small">No saved views yet.</p>}
        {views && views.length > 0 && (
          <ul className="views-list">
            {views.map((view) => (
              <li key={view.id}>
                <button
                  className="link grow"
                  onClick={(e) => {
                    e.currentTarget.closest('details')?.removeAttribute('open');
                    onOpen(view.view);
                  }}
                >
                  {view.name}
                </button>
                <button
                  className="link small"
                  aria-label={`Delete the view ${view.name}`}
                  disabled={busy}
                  onClick={() => void act(() => sendJson('DELETE', apiUrl('/api/v1/graph/views/{id}', { id: view.id })))}
                >
                  delete
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </details>
  );
}
