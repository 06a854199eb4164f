import { useState } from 'react';
import { apiUrl, getJson } from '../api/client';
import type { ShortestPaths } from '../api/types';
import { ErrorNote, Spinner } from '../ui/feedback';
import { Panel } from './Panel';

export type PathEntity = ShortestPaths['paths'][number][number];

/** Finds the shortest path between two entities (by id or name) and lists it; the page draws it on the canvas. */
export function PathPanel({
  from: initialFrom,
  onPath,
  onSelect,
  onClose,
}: {
  from: string;
  /** The path found (null: none, or cleared), with how many other shortest paths there are. */
  onPath: (path: PathEntity[] | null) => Promise<void> | void;
  onSelect: (id: string) => void;
  onClose: () => void;
}) {
  const [from, setFrom] = useState(initialFrom);
  const [to, setTo] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<{ path: PathEntity[]; others: number } | 'none' | null>(null);

  const find = async () => {
    setBusy(true);
    setError(null);
    try {
      const found = await getJson<ShortestPaths>(
        apiUrl('/api/v1/graph/analytics/shortest-paths', {}, { from: from.trim(), to: to.trim(), max_hops: 8, limit: 10 }),
      );
      const path = found.paths[0] ?? null;
      setResult(path ? { path, others: found.paths.length - 1 } : 'none');
      await onPath(path);
    } catch (err) {
      setError(err);
      setResult(null);
      await onPath(null);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Panel
      testId="path-panel"
      label="Shortest path"
      className="path-panel"
      head={<h2 className="grow">Shortest path</h2>}
      closeLabel="Close the path panel"
      onClose={() => {
        void onPath(null);
        onClose();
      }}
    >
      <form
        className="path-form"
        onSubmit={(e) => {
          e.preventDefault();
          void find();
        }}
      >
        <label>
          From
          <input value={from} onChange={(e) => setFrom(e.target.value)} placeholder="entity name or id" required />
        </label>
        <label>
          To
          <input value={to} onChange={(e) => setTo(e.target.value)} placeholder="entity name or id" required />
        </label>
        <button type="submit" disabled={busy || !from.trim() || !to.trim()}>
          Find path
        </button>
        {busy && <Spinner label="Finding the path…" />}
      </form>
      <ErrorNote error={error} onDismiss={() => setError(null)} />
      {result === 'none' && <p className="muted">No path of at most 8 relationships joins them.</p>}
      {result && result !== 'none' && (
        <>
          <p className="muted small" data-testid="path-summary">
            {result.path.length - 1} relationship{result.path.length === 2 ? '' : 's'}
            {result.others > 0 && ` · ${result.others} other path${result.others === 1 ? '' : 's'} as short`}
          </p>
          <ol className="path-list" data-testid="path-list">
            {result.path.map((entity) => (
              <li key={entity.id}>
                <button className="link" onClick={() => onSelect(entity.id)}>
                  {entity.name}
                </button>{' '}
                <span className="muted small">{entity.entity_type}</span>
              </li>
            ))}
          </ol>
        </>
      )}
    </Panel>
  );
}
