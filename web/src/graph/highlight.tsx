/** Entities to show highlighted in the graph explorer, and where they came from ("an answer", a document's title). */
export interface Highlight {
  ids: string[];
  from: string;
}

/** The stream takes the ids comma-separated in at most 8,000 characters. */
const MAX_IDS_CHARS = 7_900;

/**
 * The graph explorer showing these entities and the relationships among them, highlighted:
 * `/graph?highlight=A,B&from=…`. The ids that fit the stream's limit are kept, in the order given.
 */
export function highlightHref(ids: string[], from: string): string {
  const kept: string[] = [];
  let length = 0;
  for (const id of new Set(ids)) {
    if (id.includes(',') || length + id.length + 1 > MAX_IDS_CHARS) continue;
    kept.push(id);
    length += id.length + 1;
  }
  return `/graph?${new URLSearchParams({ highlight: kept.join(','), from }).toString()}`;
}

/** The highlight the page's address asks for, if any. */
export function readHighlight(): Highlight | null {
  const query = new URLSearchParams(location.search);
  const ids = (query.get('highlight') ?? '').split(',').filter(Boolean);
  return ids.length ? { ids, from: query.get('from') || 'a link' } : null;
}

export function HighlightNote({ highlight, onClear }: { highlight: Highlight; onClear: () => void }) {
  const count = highlight.ids.length;
  return (
    <div className="note info highlight-note" data-testid="graph-highlight">
      <span>
        Highlighted: {count} entit{count === 1 ? 'y' : 'ies'} from {highlight.from}, with the relationships among them.
      </span>
      <button className="link" onClick={onClear}>
        Show the whole graph
      </button>
    </div>
  );
}
