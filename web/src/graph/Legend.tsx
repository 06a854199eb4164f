/** Entity types with their colours and counts; unticking a type hides its nodes. */
export function Legend({
  types,
  hidden,
  onToggle,
  onOnly,
}: {
  types: Array<{ type: string; count: number; color: string }>;
  hidden: Set<string>;
  onToggle: (type: string) => void;
  onOnly: (type: string | null) => void;
}) {
  if (types.length === 0) return null;
  return (
    <div className="legend card" aria-label="Entity types">
      <div className="legend-head">
        <strong>Types</strong>
        {hidden.size > 0 && (
          <button className="link small" onClick={() => onOnly(null)}>
            show all
          </button>
        )}
      </div>
      <ul>
        {types.map(({ type, count, color }) => (
          <li key={type} className={hidden.has(type) ? 'off' : undefined}>
            <label title="Show or hide this type; double-click to show only it" onDoubleClick={() => onOnly(type)}>
              <input type="checkbox" checked={!hidden.has(type)} onChange={() => onToggle(type)} />
              <span className="swatch" style={{ background: color }} />
              <span className="grow">{type}</span>
              <span className="muted">{count}</span>
            </label>
          </li>
        ))}
      </ul>
    </div>
  );
}
