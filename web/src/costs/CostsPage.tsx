import { type FormEvent, useState } from 'react';
import { apiUrl, getJson, getOptional, sendJson } from '../api/client';
import { type CostBudget, type CostSummary, readCostHistory } from '../api/pending';
import { Stat } from '../ui/Stat';
import { ErrorNote, NotAvailable, ProgressBar, Spinner } from '../ui/feedback';
import { useResource } from '../ui/hooks';
import { TimeChart } from '../ui/TimeChart';

const usd = (n: number | null | undefined) => (n === null || n === undefined ? '—' : `$${n.toFixed(n < 1 ? 4 : 2)}`);

/** LLM costs: the period's summary, its history and the budget; says so when the server keeps no costs. */
export function CostsPage() {
  const costs = useResource(async (signal) => {
    const summary = await getOptional<CostSummary>(apiUrl('/api/v1/costs/summary'));
    if (!summary) return null;
    const [budget, history] = await Promise.all([
      getOptional<CostBudget>(apiUrl('/api/v1/costs/budget')),
      getJson<unknown>(apiUrl('/api/v1/costs/history', {}, { granularity: 'day' }), signal).catch(() => null),
    ]);
    return { summary, budget, history: history === null ? [] : readCostHistory(history) };
  }, []);
  const [budgetInput, setBudgetInput] = useState('');
  const [alertInput, setAlertInput] = useState('');
  const [error, setError] = useState<unknown>(null);

  if (costs.loading && !costs.data) return <Spinner label="Loading costs…" />;
  if (costs.error) return <ErrorNote error={costs.error} />;
  if (!costs.data)
    return (
      <NotAvailable what="Cost accounting">
        This server does not report LLM costs yet (<span className="mono">/api/v1/costs/summary</span> does not answer). Token usage of each
        query is shown with its answer on the Query page.
      </NotAvailable>
    );
  const { summary, budget, history } = costs.data;

  const saveBudget = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      await sendJson('PATCH', apiUrl('/api/v1/costs/budget'), {
        budget_usd: Number(budgetInput),
        ...(alertInput ? { alert_threshold: Number(alertInput) } : {}),
      });
      costs.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <div className="costs-page">
      <div className="stat-grid">
        <Stat label="Total this period" value={usd(summary.total_cost_usd)} />
        <Stat label="Extraction" value={usd(summary.breakdown?.extraction)} />
        <Stat label="Embedding" value={usd(summary.breakdown?.embedding)} />
        <Stat label="Queries" value={usd(summary.breakdown?.queries)} />
        <Stat label="Documents processed" value={summary.usage?.documents_processed ?? '—'} />
        <Stat label="Queries executed" value={summary.usage?.queries_executed ?? '—'} />
        <Stat label="Tokens" value={summary.usage?.tokens_used?.toLocaleString() ?? '—'} />
      </div>
      <div className="card">
        <h3>Daily cost</h3>
        {history.length === 0 ? (
          <div className="muted small">No cost history yet.</div>
        ) : (
          <TimeChart
            times={history.map((p) => p.time)}
            series={[{ label: 'USD', color: '#4f7cff', values: history.map((p) => p.cost) }]}
            yLabel="USD"
          />
        )}
      </div>
      {budget && (
        <div className="card">
          <h3>Budget {budget.period ? `(${budget.period})` : ''}</h3>
          {budget.budget_usd !== null ? (
            <>
              <ProgressBar
                value={budget.percent_used ?? 0}
                label={`${usd(budget.spent_usd)} of ${usd(budget.budget_usd)} (${(budget.percent_used ?? 0).toFixed(1)}%)`}
              />
              <div className="muted small">
                remaining {usd(budget.remaining_usd)} · projected for the period {usd(budget.projected_end_of_period)}
                {budget.alert_threshold !== null && budget.alert_threshold !== undefined && ` · alert at ${budget.alert_threshold}`}
              </div>
            </>
          ) : (
            <div className="muted small">No budget set; spent {usd(budget.spent_usd)}.</div>
          )}
          <form className="row" onSubmit={(e) => void saveBudget(e)}>
            <label>
              Budget (USD)
              <input type="number" min={0} step="0.01" value={budgetInput} onChange={(e) => setBudgetInput(e.target.value)} required />
            </label>
            <label>
              Alert threshold
              <input
                type="number"
                min={0}
                max={1}
                step="0.05"
                value={alertInput}
                onChange={(e) => setAlertInput(e.target.value)}
                placeholder="0.8"
              />
            </label>
            <button type="submit">Set budget</button>
          </form>
          <ErrorNote error={error} />
        </div>
      )}
    </div>
  );
}
