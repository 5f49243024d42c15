import { type ReactNode, useEffect, useRef } from 'react';

interface ConfirmDialogProps {
  /** Shown while true; the dialog is modal, so the rest of the page is inert. */
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  cancelLabel: string;
  /** A destructive action's button is styled as one. */
  destructive?: boolean;
  busy?: boolean;
  onConfirm(): void;
  onCancel(): void;
}

/** A native modal `<dialog>`: focus moves into it, Escape cancels, and focus goes back to the opener on close. */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (props.open && !element.open) {
      opener.current = document.activeElement;
      element.showModal();
    } else if (!props.open && element.open) {
      element.close();
      if (opener.current instanceof HTMLElement) opener.current.focus();
    }
  }, [props.open]);
  return (
    <dialog
      ref={dialog}
      className="confirm-dialog"
      aria-labelledby="confirm-dialog-title"
      onCancel={(event) => {
        event.preventDefault();
        props.onCancel();
      }}
    >
      <h2 id="confirm-dialog-title">{props.title}</h2>
      {props.children}
      <div className="dialog-actions">
        <button type="button" onClick={props.onCancel} autoFocus>
          {props.cancelLabel}
        </button>
        <button
          type="button"
          className={props.destructive ? 'destructive' : undefined}
          disabled={props.busy}
          onClick={props.onConfirm}
        >
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
