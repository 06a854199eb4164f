import { useState } from 'react';
import { apiUrl, getJson, sendJson } from '../api/client';
import { useCanEdit } from '../api/role';
import type { Ok } from '../api/types';
import { Empty, ErrorNote, Spinner } from '../ui/feedback';
import { useAction, useResource } from '../ui/hooks';
import { Link, graphHref } from '../ui/Link';

type Settings = Ok<'/api/v1/graph/resolution/settings'>;
type DryRun = Ok<'/api/v1/graph/resolution/dry-run', 'post'>;
type Proposal = DryRun['proposals'][number];
type Applied = Ok<'/api/v1/graph/resolution/apply', 'post'>;
type Rejected = Ok<'/api/v1/graph/resolution/reject', 'post'>;

const DECISIONS: Record<Proposal['decision'], string> = {
  merge: 'above the merge score',
  confirmed: 'the model says same',
  rejected: 'the model says different',
  unconfirmed: 'in the review band',
};

/**
 * The entity resolution review queue: the candidate pairs a dry run proposes (`/graph/resolution/dry-run`), each with
 * its evidence, accepted (`/graph/resolution/apply`) or rejected (`/graph/resolution/reject`: the pair is kept apart
 * from then on, in every later dry run and ingestion) one by one.
 */
export function ReviewPage() {
  const [limit, setLimit] = useState(100);
  const [confirm, setConfirm] = useState(false);
  const [asked, setAsked] = useState({ limit, confirm });
  const [notice, setNotice] = useState<string | null>(null);
  const action = useAction();
  const canEdit = useCanEdit();
  const settings = useResource((signal) => getJson<Settings>(apiUrl('/api/v1/graph/resolution/settings'), signal), []);
  // The dry run is an editor's call (it may ask the model); a viewer is told so instead.
  const run = useResource(
    () =>
      canEdit === true
        ? sendJson<DryRun>('POST', apiUrl('/api/v1/graph/resolution/dry-run'), { limit: asked.limit, confirm: asked.confirm })
        : Promise.resolve(null),
    [asked, canEdit],
  );

  const reject = (p: Proposal) =>
    void action.run(async () => {
      const result = await sendJson<Rejected>('POST', apiUrl('/api/v1/graph/resolution/reject'), {
        pairs: [{ source_id: p.source_id, target_id: p.target_id }],
      });
      setNotice(
        result.rejected.length
          ? `Rejected: “${p.source_name}” and “${p.target_name}” stay apart.`
          : `Not rejected: ${result.skipped.map((x) => x.reason).join('; ') || 'skipped'}.`,
      );
      run.reload();
    });
  const accept = (p: Proposal) =>
    void action.run(async () => {
      const result = await sendJson<Applied>('POST', apiUrl('/api/v1/graph/resolution/apply'), {
        merges: [{ source_id: p.source_id, target_id: p.target_id, reason: `reviewed: ${p.reason}`.slice(0, 1000) }],
      });
      setNotice(
        result.applied.length
          ? `Merged “${p.source_name}” into “${p.target_name}”.`
          : `Not merged: ${result.skipped.map((s) => s.reason).join('; ') || 'skipped'}.`,
      );
      run.reload();
    });

  const proposals = run.data?.proposals ?? [];
  const s = settings.data;

  return (
    <div className="review-page">
      <div className="toolbar">
        <h1 className="grow">Resolution review</h1>
        <form
          className="row wrap"
          onSubmit={(e) => {
            e.preventDefault();
            setAsked({ limit, confirm });
            if (asked.limit === limit && asked.confirm === confirm) run.reload();
          }}
        >
          <label>
            Entities examined
            <input type="number" min={1} max={500} value={limit} onChange={(e) => setLimit(Number(e.target.value))} />
          </label>
          <label>
            <input type="checkbox" checked={confirm} onChange={(e) => setConfirm(e.target.checked)} /> Ask the model about the review band
          </label>
          <button type="submit" disabled={run.loading}>
            Look again
          </button>
        </form>
      </div>
      <p className="muted small">
        Entity pairs that may name one thing, with the evidence: name and embedding similarity, and the model’s verdict when asked.
        {s && (
          <>
            {' '}
            Resolution is {s.enabled ? 'on' : 'off'} in this workspace: pairs from {s.review_score} are proposed, from {s.merge_score}{' '}
            merged during ingestion.
          </>
        )}
      </p>
      {notice && (
        <div className="note info" role="status">
          {notice}{' '}
          <button className="link" onClick={() => setNotice(null)} aria-label="Dismiss">
            ×
          </button>
        </div>
      )}
      <ErrorNote error={action.error ?? run.error ?? settings.error} onDismiss={action.clearError} />
      {canEdit === false && (
        <div className="note info" data-testid="review-needs-editor">
          Reviewing candidate pairs needs the editor role.
        </div>
      )}
      {run.loading && !run.data && <Spinner label="Comparing entities…" />}
      {run.data && proposals.length === 0 && (
        <Empty title="No pair waits for review">{run.data.examined} entities were compared; none has a likely duplicate left.</Empty>
      )}
      {proposals.length > 0 && (
        <table className="table review-table" data-testid="review-table">
          <thead>
            <tr>
              <th>Absorbed</th>
              <th>Into</th>
              <th className="num">Score</th>
              <th>Evidence</th>
              <th>
                <span className="visually-hidden">Decision</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {proposals.map((p) => (
              <tr key={`${p.source_id}\u0000${p.target_id}`} data-testid="review-row">
                <td>
                  <Link href={graphHref(p.source_id)}>{p.source_name}</Link>
                </td>
                <td>
                  <Link href={graphHref(p.target_id)}>{p.target_name}</Link>
                </td>
                <td className="num">{p.score.toFixed(2)}</td>
                <td className="small">
                  <div>
                    name {p.name_score.toFixed(2)} · embedding {p.embedding_score === null ? '—' : p.embedding_score.toFixed(2)} ·{' '}
                    <span className={`badge decision-${p.decision}`}>{DECISIONS[p.decision]}</span>
                  </div>
                  <div className="muted">{p.reason}</div>
                </td>
                <td className="actions">
                  <button
                    className="primary small"
                    onClick={() => accept(p)}
                    disabled={action.busy}
                    aria-label={`Accept: merge ${p.source_name} into ${p.target_name}`}
                  >
                    Accept
                  </button>{' '}
                  <button
                    className="small"
                    onClick={() => reject(p)}
                    disabled={action.busy}
                    aria-label={`Reject: keep ${p.source_name} and ${p.target_name} apart`}
                  >
                    Reject
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {run.loading && run.data && <Spinner label="Comparing entities…" />}
    </div>
  );
}
