import { type ReactNode, useState } from 'react';
import { ErrorNote, Spinner } from '../ui/feedback';
import { Modal } from '../ui/Modal';

interface Props {
  title: string;
  testId: string;
  /** What the change does, shown before it is confirmed; null while it is being worked out. */
  impact: ReactNode;
  confirmLabel: string;
  busyLabel: string;
  danger?: boolean;
  /** The form is complete and the impact known. */
  ready: boolean;
  onConfirm: () => Promise<void>;
  onClose: () => void;
  children?: ReactNode;
}

/** A graph edit in a modal dialog: its form, what it will change, and a confirmation that waits for the service. */
export function EditDialog({ title, testId, impact, confirmLabel, busyLabel, danger, ready, onConfirm, onClose, children }: Props) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <Modal label={title} onClose={onClose} busy={busy} className="narrow edit-dialog" testId={testId}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (ready && !busy) void confirm();
        }}
      >
        <h2>{title}</h2>
        {children}
        <div className="impact-note" data-testid="edit-impact" aria-live="polite">
          {impact ?? <Spinner label="Working out what changes…" />}
        </div>
        <ErrorNote error={error} />
        <div className="row end">
          <button type="button" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" className={danger ? 'danger' : 'primary'} disabled={busy || !ready}>
            {busy ? <Spinner label={busyLabel} /> : confirmLabel}
          </button>
        </div>
      </form>
    </Modal>
  );
}

/** "1 relationship", "3 relationships". */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
