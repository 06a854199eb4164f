import { type FormEvent, useState } from 'react';
import { apiUrl, getJson, sendJson } from '../api/client';
import type { Workspace } from '../api/pending';
import { currentWorkspace, selectWorkspace } from '../api/session';
import type { GraphStats, WorkspaceStats } from '../api/types';
import { typeColor } from '../graph/colors';
import type { ServerInfo } from '../shell/server';
import { Stat } from '../ui/Stat';
import { ErrorNote, NotAvailable, Spinner } from '../ui/feedback';
import { useResource } from '../ui/hooks';

interface Props {
  info: ServerInfo;
  workspaces: Workspace[] | null;
  onWorkspacesChanged: () => void;
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** The workspace: its statistics, and (where the server has workspaces) the list and a form to create one. */
export function WorkspacePage({ info, workspaces, onWorkspacesChanged }: Props) {
  const id = currentWorkspace() ?? info.health.workspace_id;
  const stats = useResource(
    async (signal) => {
      const [workspace, graph] = await Promise.all([
        getJson<WorkspaceStats>(apiUrl('/api/v1/workspaces/{id}/stats', { id }), signal),
        getJson<GraphStats>(apiUrl('/api/v1/graph/stats'), signal),
      ]);
      return { workspace, graph };
    },
    [id],
    10000,
  );
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setCreating(true);
    setError(null);
    try {
      const created = await sendJson<Workspace>('POST', apiUrl('/api/v1/workspaces'), {
        name: name.trim(),
        description: description.trim() || undefined,
      });
      setName('');
      setDescription('');
      onWorkspacesChanged();
      if (created?.id) selectWorkspace(created.id);
    } catch (err) {
      setError(err);
    } finally {
      setCreating(false);
    }
  };

  const s = stats.data?.workspace;
  const g = stats.data?.graph;
  return (
    <div className="workspace-page">
      <h1>
        Workspace <span className="mono">{workspaces?.find((w) => w.id === id)?.name ?? id}</span>
      </h1>
      <ErrorNote error={stats.error} />
      {!s && stats.loading && <Spinner label="Loading statistics…" />}
      {s && g && (
        <>
          <div className="stat-grid">
            <Stat label="Documents" value={s.documents.total} />
            <Stat
              label="Completed / processing / failed"
              value={`${s.documents.completed} / ${s.documents.processing} / ${s.documents.failed}`}
            />
            <Stat label="Chunks" value={s.chunks.total} />
            <Stat label="Chunks per document" value={s.chunks.avg_per_document.toFixed(1)} />
            <Stat label="Entities" value={s.entities.total} />
            <Stat label="Relationships" value={s.relationships.total} />
            <Stat label="Average degree" value={g.avg_degree.toFixed(2)} />
            <Stat label="Storage" value={`${bytes(s.storage.total_bytes)} (${bytes(s.storage.embeddings_bytes)} vectors)`} />
          </div>
          <div className="two-columns">
            <div className="card">
              <h3>Entity types</h3>
              <TypeBars counts={s.entities.by_type} />
            </div>
            <div className="card">
              <h3>Relation types</h3>
              <TypeBars counts={g.edge_types} />
            </div>
          </div>
        </>
      )}
      <h2>Workspaces</h2>
      {workspaces === null ? (
        <NotAvailable what="Workspace management">
          This server keeps everything in its default workspace (<span className="mono">{info.health.workspace_id}</span>) and offers no
          workspace list yet. The statistics above are that workspace's.
        </NotAvailable>
      ) : (
        <div className="two-columns">
          <ul className="card workspace-list">
            {workspaces.map((w) => (
              <li key={w.id} className={w.id === id ? 'active' : undefined}>
                <button className="link" onClick={() => selectWorkspace(w.id)}>
                  {w.name}
                </button>
                {w.description && <div className="muted small">{w.description}</div>}
              </li>
            ))}
          </ul>
          <form className="card" onSubmit={(e) => void create(e)}>
            <h3>New workspace</h3>
            <label>
              Name
              <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />
            </label>
            <label>
              Description
              <input value={description} onChange={(e) => setDescription(e.target.value)} />
            </label>
            <ErrorNote error={error} />
            <button type="submit" className="primary" disabled={creating || !name.trim()}>
              {creating ? 'Creating…' : 'Create'}
            </button>
          </form>
        </div>
      )}
    </div>
  );
}

function TypeBars({ counts }: { counts: Record<string, number> }) {
  const rows = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  const max = Math.max(1, ...rows.map(([, n]) => n));
  if (rows.length === 0) return <div className="muted small">None yet.</div>;
  return (
    <ul className="bars">
      {rows.slice(0, 15).map(([type, n]) => (
        <li key={type}>
          <span className="bar-label">{type}</span>
          <span className="bar" style={{ width: `${(n / max) * 100}%`, background: typeColor(type) }} />
          <span className="muted small">{n}</span>
        </li>
      ))}
    </ul>
  );
}
