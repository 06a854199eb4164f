import { useEffect, useState } from 'react';
import { apiUrl, getJson, sendJson } from '../api/client';
import type { DocumentList, PipelineStatus, QueueMetrics, TaskList } from '../api/types';
import { formatDuration } from '../ui/format';
import { Empty, ErrorNote, ProgressBar, Spinner } from '../ui/feedback';
import { useAction, useResource } from '../ui/hooks';
import { Link } from '../ui/Link';
import { Stat } from '../ui/Stat';
import { TimeChart } from '../ui/TimeChart';

type Filter = 'all' | 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';
const HISTORY = 120;

/** The processing pipeline: workers, queue, rates and latency, and the task list with cancel and retry. */
export function TasksPage() {
  const [filter, setFilter] = useState<Filter>('all');
  const [notice, setNotice] = useState<string | null>(null);
  const [history, setHistory] = useState<{ times: number[]; pending: number[]; running: number[] }>({
    times: [],
    pending: [],
    running: [],
  });
  const action = useAction();
  const data = useResource(
    async (signal) => {
      const [status, metrics, tasks, documents] = await Promise.all([
        getJson<PipelineStatus>(apiUrl('/api/v1/pipeline/status'), signal),
        getJson<QueueMetrics>(apiUrl('/api/v1/pipeline/queue-metrics'), signal),
        getJson<TaskList>(apiUrl('/api/v1/tasks', {}, { status: filter, limit: 100 }), signal),
        // The tasks are listed by their documents' titles.
        getJson<DocumentList>(apiUrl('/api/v1/documents', {}, { limit: 200 }), signal).catch(() => null),
      ]);
      return { status, metrics, tasks, titles: new Map((documents?.documents ?? []).map((d) => [d.id, d.title])) };
    },
    [filter],
    2000,
  );

  // Queue depth over the time this page is open, sampled at each refresh.
  useEffect(() => {
    const m = data.data?.metrics;
    if (!m) return;
    setHistory((h) => ({
      times: [...h.times, Date.now() / 1000].slice(-HISTORY),
      pending: [...h.pending, m.queue.pending].slice(-HISTORY),
      running: [...h.running, m.queue.running].slice(-HISTORY),
    }));
  }, [data.data]);

  const act = (call: () => Promise<{ message?: string }>) =>
    void action.run(async () => {
      const result = await call();
      setNotice(result.message ?? 'Done.');
      data.reload();
    });

  if (!data.data) return data.error ? <ErrorNote error={data.error} /> : <Spinner label="Loading the pipeline…" />;
  const { status, metrics, tasks, titles } = data.data;

  return (
    <div className="tasks-page">
      <div className="stat-grid">
        <Stat label="Pipeline" value={status.status} />
        <Stat label="Queue depth" value={status.queue_depth} />
        <Stat label="Running" value={status.active_tasks} />
        <Stat label="Workers busy" value={`${status.workers.busy} / ${status.workers.total}`} />
        <Stat label="Documents / min" value={status.rates.documents_per_minute} />
        <Stat label="Chunks / min" value={status.rates.chunks_per_minute} />
        <Stat label="Embeddings / min" value={status.rates.embeddings_per_minute} />
        <Stat label="Failed" value={metrics.queue.failed} />
        <Stat label="Done last hour" value={metrics.throughput.last_hour} />
        <Stat label="Latency p50 / p95" value={`${formatDuration(metrics.latency.p50_ms)} / ${formatDuration(metrics.latency.p95_ms)}`} />
      </div>
      <div className="card">
        <h3>Queue while this page is open</h3>
        <TimeChart
          times={history.times}
          series={[
            { label: 'pending', color: '#f2a541', values: history.pending },
            { label: 'running', color: '#4f7cff', values: history.running },
          ]}
          height={150}
        />
      </div>
      <div className="toolbar">
        <h1>Tasks</h1>
        <select value={filter} onChange={(e) => setFilter(e.target.value as Filter)} aria-label="Status">
          {(['all', 'pending', 'running', 'completed', 'failed', 'cancelled'] as Filter[]).map((f) => (
            <option key={f}>{f}</option>
          ))}
        </select>
        <span className="grow" />
        <button
          onClick={() => act(() => sendJson('POST', apiUrl('/api/v1/pipeline/cancel')))}
          disabled={action.busy || status.queue_depth === 0}
          title="Cancel every pending task of the workspace"
        >
          Cancel all pending
        </button>
      </div>
      {notice && <div className="note info">{notice}</div>}
      <ErrorNote error={action.error ?? data.error} onDismiss={action.clearError} />
      {tasks.tasks.length === 0 ? (
        <Empty title="No tasks">Documents added with background processing show up here while they are worked on.</Empty>
      ) : (
        <table className="table" data-testid="tasks-table">
          <thead>
            <tr>
              <th>Document</th>
              <th>Task</th>
              <th>Status</th>
              <th>Progress</th>
              <th>Updated</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {tasks.tasks.map((t) => (
              <tr key={t.id} data-testid="task-row">
                <td>
                  <Link href={`/documents/${encodeURIComponent(t.document_id)}`}>
                    {titles.get(t.document_id) ?? `document ${t.document_id.slice(0, 8)}`}
                  </Link>
                </td>
                <td className="mono small muted" title={t.id}>
                  {t.task_type.replace(/_/g, ' ')}
                </td>
                <td>
                  <span className={`badge ${t.status}`}>{t.status}</span>
                </td>
                <td className="progress-cell">
                  <ProgressBar value={t.progress} name={`Progress of ${titles.get(t.document_id) ?? 'the task'}`} />
                </td>
                <td className="muted small">{new Date(t.updated_at).toLocaleTimeString()}</td>
                <td className="actions">
                  {(t.status === 'pending' || t.status === 'running') && (
                    <button className="link" onClick={() => act(() => sendJson('POST', apiUrl('/api/v1/tasks/{id}/cancel', { id: t.id })))}>
                      cancel
                    </button>
                  )}
                  {(t.status === 'failed' || t.status === 'cancelled') && (
                    <button className="link" onClick={() => act(() => sendJson('POST', apiUrl('/api/v1/tasks/{id}/retry', { id: t.id })))}>
                      retry
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
