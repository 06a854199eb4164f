import { useEffect, useState } from 'react';
import { apiUrl, getJson, sendJson } from '../api/client';
import type { DocumentItem, DocumentList } from '../api/types';
import { Empty, ErrorNote, ProgressBar, Spinner } from '../ui/feedback';
import { useAction, useResource } from '../ui/hooks';
import { Link } from '../ui/Link';
import { DeleteDialog } from './DeleteDialog';
import { taskProgressByDocument } from './progress';
import { UploadPanel } from './UploadPanel';
import { ExtractionSummary, WarningsBadge } from './ExtractionHealth';

type StatusFilter = 'all' | 'processing' | 'completed' | 'failed';

/** Documents: add them, watch them being processed stage by stage, open, retry or delete them. */
export function DocumentsPage({ workspaceId }: { workspaceId: string }) {
  const [filter, setFilter] = useState<StatusFilter>('all');
  const [search, setSearch] = useState('');
  const [deleting, setDeleting] = useState<DocumentItem | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [anyProcessing, setAnyProcessing] = useState(true);
  const action = useAction();
  const docs = useResource(
    async (signal) => {
      const [list, tasks] = await Promise.all([
        getJson<DocumentList>(
          apiUrl('/api/v1/documents', {}, { limit: 200, status: filter, document_pattern: search.trim() || undefined }),
          signal,
        ),
        taskProgressByDocument(signal),
      ]);
      return { list, tasks };
    },
    [filter, search],
    // Poll fast while something is processing, slowly otherwise.
    anyProcessing ? 1500 : 10000,
  );

  const list = docs.data?.list;
  const processing = list?.documents.some((d) => d.status === 'processing') ?? false;
  useEffect(() => setAnyProcessing(processing), [processing]);

  const run = (label: string, call: () => Promise<{ message?: string }>) =>
    void action.run(async () => {
      const result = await call();
      setNotice(result.message ?? label);
      docs.reload();
    });

  return (
    <div className="documents-page">
      <UploadPanel onQueued={docs.reload} statusOf={(id) => list?.documents.find((d) => d.id === id)?.status} />
      <div className="toolbar">
        <h1>Documents</h1>
        <select value={filter} onChange={(e) => setFilter(e.target.value as StatusFilter)} aria-label="Status">
          <option value="all">all statuses</option>
          <option value="processing">processing</option>
          <option value="completed">completed</option>
          <option value="failed">failed</option>
        </select>
        <input
          type="search"
          placeholder="Filter by title…"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          aria-label="Filter by title"
        />
        <span className="grow" />
        {processing && <Spinner label="processing…" />}
        <button
          onClick={() => run('Failed documents queued', () => sendJson('POST', apiUrl('/api/v1/documents/reprocess')))}
          disabled={action.busy}
        >
          Reprocess failed
        </button>
        <button
          onClick={() => run('Stuck documents queued', () => sendJson('POST', apiUrl('/api/v1/documents/recover-stuck')))}
          disabled={action.busy}
        >
          Recover stuck
        </button>
      </div>
      {notice && (
        <div className="note info">
          {notice}{' '}
          <button className="link" onClick={() => setNotice(null)}>
            ×
          </button>
        </div>
      )}
      <ErrorNote error={action.error ?? docs.error} onDismiss={action.clearError} />
      <ExtractionSummary workspaceId={workspaceId} refresh={list?.documents.map((d) => d.status).join() ?? ''} />
      {!list && docs.loading && <Spinner label="Loading documents…" />}
      {list && list.documents.length === 0 && (
        <Empty title={filter === 'all' && !search ? 'No documents yet' : 'No document matches'}>
          {filter === 'all' && !search
            ? 'Drop a file above or paste some text to build the knowledge graph.'
            : 'Change the filters to see more.'}
        </Empty>
      )}
      {list && list.documents.length > 0 && (
        <table className="table" data-testid="documents-table">
          <thead>
            <tr>
              <th>Title</th>
              <th>Status</th>
              <th>Progress</th>
              <th className="num">Chunks</th>
              <th>Added</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.documents.map((d) => {
              const task = docs.data?.tasks.get(d.id);
              return (
                <tr key={d.id} data-testid="document-row" data-status={d.status}>
                  <td>
                    <Link href={`/documents/${encodeURIComponent(d.id)}`}>{d.title}</Link>
                  </td>
                  <td>
                    <span className={`badge ${d.status}`}>{d.status}</span> <WarningsBadge warnings={d.warnings} />
                  </td>
                  <td className="progress-cell">
                    {d.status === 'processing' && task ? (
                      <ProgressBar
                        value={task.progress}
                        label={`${task.stage ?? task.status} ${task.progress}%${task.chunks ? ` · ${task.chunks}` : ''}`}
                        name={`Processing of ${d.title}`}
                      />
                    ) : d.status === 'failed' ? (
                      <span className="small error-text">{task?.error ?? d.error_message ?? 'failed'}</span>
                    ) : (
                      <span className="muted small">{d.status === 'processing' ? 'queued' : 'done'}</span>
                    )}
                  </td>
                  <td className="num" data-testid="document-chunks">
                    {d.status === 'processing' && task?.chunksTotal ? task.chunksTotal : d.chunk_count}
                  </td>
                  <td className="muted small">{new Date(d.created_at).toLocaleString()}</td>
                  <td className="actions">
                    {d.status === 'failed' && (
                      <button
                        className="link"
                        onClick={() =>
                          run('Retry queued', () => sendJson('POST', apiUrl('/api/v1/documents/{id}/retry-chunks', { id: d.id })))
                        }
                      >
                        retry failed chunks
                      </button>
                    )}
                    <button className="link danger" onClick={() => setDeleting(d)} aria-label={`Delete ${d.title}`}>
                      delete
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {list && list.total > list.documents.length && (
        <div className="muted small">
          Showing {list.documents.length} of {list.total}. Narrow the filters to find others.
        </div>
      )}
      {deleting && (
        <DeleteDialog
          id={deleting.id}
          title={deleting.title}
          onClose={() => setDeleting(null)}
          onDeleted={() => {
            setNotice(`Deleted “${deleting.title}”.`);
            setDeleting(null);
            docs.reload();
          }}
        />
      )}
    </div>
  );
}
