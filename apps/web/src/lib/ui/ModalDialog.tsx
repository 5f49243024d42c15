import { type ReactNode, useEffect, useId, useRef } from 'react';
import './forms.css';

interface ModalDialogProps {
  open: boolean;
  title: string;
  children?: ReactNode;
  className?: string;
  /** Escape, or the dialog's own close button. */
  onClose(): void;
}

/**
 * A native modal `<dialog>` for a form or a result (ConfirmDialog is for a yes or no): focus moves to its first
 * control (or the one marked `data-autofocus`), Escape closes it, and focus goes back to the opener on close.
 * React's `autoFocus` does not work inside: it focuses on mount, while the dialog is still closed.
 */
export function ModalDialog(props: ModalDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  const titleId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (props.open && !element.open) {
      opener.current = document.activeElement;
      element.showModal();
      element.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    } else if (!props.open && element.open) {
      element.close();
      if (opener.current instanceof HTMLElement && opener.current.isConnected) opener.current.focus();
    }
  }, [props.open]);
  return (
    <dialog
      ref={dialog}
      className={`confirm-dialog ${props.className ?? ''}`.trim()}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        props.onClose();
      }}
    >
      <h2 id={titleId}>{props.title}</h2>
      {props.open && props.children}
    </dialog>
  );
}
