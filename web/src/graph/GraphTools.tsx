import { useState } from 'react';
import { type LayoutKind, LAYOUTS } from './arrange';
import { SavedViews } from './SavedViews';
import type { SavedViewSettings } from '../api/types';

export type ExportKind = 'png' | 'graphml' | 'nodes-csv' | 'edges-csv';

const EXPORTS: Array<{ kind: ExportKind; label: string }> = [
  { kind: 'png', label: 'Image (PNG)' },
  { kind: 'graphml', label: 'GraphML' },
  { kind: 'nodes-csv', label: 'Nodes (CSV)' },
  { kind: 'edges-csv', label: 'Relationships (CSV)' },
];

/** The graph's own toolbar: layout, shortest path, export and saved views. */
export function GraphTools({
  layout,
  onLayout,
  pathOpen,
  onPath,
  onExport,
  currentView,
  onOpenView,
}: {
  layout: LayoutKind;
  onLayout: (kind: LayoutKind) => void;
  pathOpen: boolean;
  onPath: () => void;
  onExport: (kind: ExportKind) => Promise<void> | void;
  currentView: () => SavedViewSettings;
  onOpenView: (view: SavedViewSettings) => void;
}) {
  const [exporting, setExporting] = useState(false);
  return (
    <div className="graph-tools" role="toolbar" aria-label="Graph tools">
      <label>
        Layout
        <select value={layout} onChange={(e) => onLayout(e.target.value as LayoutKind)} aria-label="Layout">
          {LAYOUTS.map(({ kind, label }) => (
            <option key={kind} value={kind}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <button aria-pressed={pathOpen} onClick={onPath}>
        Shortest path
      </button>
      <details className="menu">
        <summary>Export</summary>
        <div className="menu-items card" role="group" aria-label="Export the view">
          {EXPORTS.map(({ kind, label }) => (
            <button
              key={kind}
              className="link"
              disabled={exporting}
              onClick={(e) => {
                const menu = e.currentTarget.closest('details');
                setExporting(true);
                void Promise.resolve(onExport(kind)).finally(() => {
                  setExporting(false);
                  menu?.removeAttribute('open');
                });
              }}
            >
              {label}
            </button>
          ))}
        </div>
      </details>
      <SavedViews currentView={currentView} onOpen={onOpenView} />
    </div>
  );
}
