import { type KeyboardEvent, type ReactNode, useEffect, useRef } from 'react';

interface Props {
  label: string;
  onClose: () => void;
  /** While busy, Esc and a click beside the dialog do not close it. */
  busy?: boolean;
  className?: string;
  testId?: string;
  children: ReactNode;
}

/**
 * A modal dialog on the browser's own `<dialog>`: the page behind it is inert (focus stays in the dialog), Esc and a
 * click on the backdrop close it, and focus returns to where it was when it closes.
 */
export function Modal({ label, onClose, busy = false, className = '', testId, children }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const busyRef = useRef(busy);
  busyRef.current = busy;

  useEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    return () => {
      if (dialog.open) dialog.close();
      opener?.focus();
    };
  }, []);

  return (
    <dialog
      ref={ref}
      className={`modal card ${className}`}
      aria-label={label}
      aria-modal="true"
      data-testid={testId}
      onCancel={(e) => {
        e.preventDefault();
        if (!busyRef.current) onClose();
      }}
      onMouseDown={(e) => e.target === e.currentTarget && !busyRef.current && onClose()}
      onKeyDown={(e) => e.key === 'Tab' && keepFocusInside(e.currentTarget, e)}
    >
      {children}
    </dialog>
  );
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** Tab from the last control goes back to the first (and Shift+Tab from the first to the last), not to the browser. */
function keepFocusInside(dialog: HTMLDialogElement, event: KeyboardEvent<HTMLDialogElement>) {
  const controls = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((element) => element.getClientRects().length > 0);
  if (controls.length === 0) return;
  const first = controls[0];
  const last = controls[controls.length - 1];
  const active = document.activeElement;
  if (event.shiftKey && (active === first || !dialog.contains(active))) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (active === last || !dialog.contains(active))) {
    event.preventDefault();
    first.focus();
  }
}
