import { type ReactNode, useEffect, useState } from 'react';

interface Props {
  testId: string;
  /** The panel's accessible name. */
  label: string;
  /** What the head shows before its buttons (a title, a swatch). */
  head: ReactNode;
  onClose: () => void;
  closeLabel?: string;
  className?: string;
  children: ReactNode;
}

/**
 * A detail panel beside the graph (a bottom sheet on narrow screens, where it can fold to its head so the canvas
 * shows again). Esc closes it, unless a dialog open above it takes the key first.
 */
export function Panel({ testId, label, head, onClose, closeLabel = 'Close', className, children }: Props) {
  const [folded, setFolded] = useState(false);
  useEffect(() => {
    const close = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && !document.querySelector('dialog[open]')) onClose();
    };
    window.addEventListener('keydown', close);
    return () => window.removeEventListener('keydown', close);
  }, [onClose]);

  return (
    <aside className={['panel card', className, folded && 'folded'].filter(Boolean).join(' ')} data-testid={testId} aria-label={label}>
      <div className="panel-head">
        {head}
        <button
          className="link panel-fold"
          onClick={() => setFolded((was) => !was)}
          aria-expanded={!folded}
          aria-label={folded ? 'Unfold the panel' : 'Fold the panel'}
        >
          {folded ? '▴' : '▾'}
        </button>
        <button className="link" onClick={onClose} aria-label={closeLabel}>
          ×
        </button>
      </div>
      <div className="panel-body">{children}</div>
    </aside>
  );
}
