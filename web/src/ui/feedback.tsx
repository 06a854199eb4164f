import type { ReactNode } from 'react';
import { describeError } from '../api/client';

/** An API error as the problem detail words it. */
export function ErrorNote({ error, onDismiss }: { error: unknown; onDismiss?: () => void }) {
  if (!error) return null;
  return (
    <div className="note error" role="alert">
      <span>{describeError(error)}</span>
      {onDismiss && (
        <button className="link" onClick={onDismiss} aria-label="Dismiss">
          ×
        </button>
      )}
    </div>
  );
}

/** What to do when a list is empty. */
export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <strong>{title}</strong>
      {children && <div>{children}</div>}
    </div>
  );
}

export function Spinner({ label }: { label?: string }) {
  return (
    <span className="spinner" role="status">
      <span className="spinner-dot" aria-hidden />
      {label && <span>{label}</span>}
    </span>
  );
}

/** A progress bar named for assistive technology by `name` (else by its visible label). */
export function ProgressBar({ value, label, name }: { value: number; label?: string; name?: string }) {
  const percent = Math.max(0, Math.min(100, Math.round(value)));
  return (
    <div
      className="progress"
      role="progressbar"
      aria-valuenow={percent}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-label={name ?? label ?? 'Progress'}
      aria-valuetext={label ?? `${percent}%`}
    >
      <div className="progress-fill" style={{ width: `${percent}%` }} />
      <span className="progress-text">{label ?? `${percent}%`}</span>
    </div>
  );
}

/** A page that needs an API this server does not offer. */
export function NotAvailable({ what, children }: { what: string; children?: ReactNode }) {
  return (
    <div className="empty not-available" data-testid="not-available">
      <strong>{what} not available</strong>
      <div>{children ?? 'This server does not offer this part of the API yet.'}</div>
    </div>
  );
}
