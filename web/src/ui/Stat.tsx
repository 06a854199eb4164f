/** One figure with its label, in the statistics grids. */
export function Stat({ label, value }: { label: string; value: string | number }) {
  return (
    <div className="stat card">
      <div className="muted small">{label}</div>
      <div className="stat-value">{value}</div>
    </div>
  );
}
