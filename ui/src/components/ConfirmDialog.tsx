// An in-app "are you sure?" dialog (instead of window.confirm, which
// webviews and test browsers may dismiss on their own). Escape or a click
// outside cancels; Cancel has the focus, so a stray Enter cancels too.
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';

export function ConfirmDialog({
  title,
  message,
  confirmLabel,
  onConfirm,
  onCancel,
  testid,
  children,
  confirmDisabled,
}: {
  title: string;
  message: string;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  testid?: string;
  /** More to choose before confirming, shown below the message. */
  children?: ComponentChildren;
  confirmDisabled?: boolean;
}) {
  const cancel = useRef<HTMLButtonElement>(null);
  // A layout effect: listening from the moment the dialog is on screen.
  useLayoutEffect(() => {
    cancel.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        onCancel();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onCancel]);
  return (
    <div class="modal-backdrop" onClick={(e) => e.target === e.currentTarget && onCancel()}>
      <div class="modal confirm-dialog" role="dialog" aria-modal="true" aria-label={title} data-testid={testid}>
        <h2>{title}</h2>
        <p>{message}</p>
        {children}
        <div class="modal-actions">
          <button type="button" ref={cancel} onClick={onCancel} data-testid="confirm-dialog-cancel">
            Cancel
          </button>
          <button
            type="button"
            class="danger"
            disabled={confirmDisabled}
            onClick={onConfirm}
            data-testid="confirm-dialog-ok"
          >
            {confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}
