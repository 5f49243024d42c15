import { useEffect, useRef } from 'react';
import { type LogRecord } from './api';

interface RowDetailsProps {
  record: LogRecord | undefined;
  fields: readonly string[];
  title: string;
  closeLabel: string;
  onClose(): void;
}

/** Every field of a record in a modal `<dialog>`: JSON values pretty-printed; Escape closes, focus goes back. */
export function RowDetails({ record, fields, title, closeLabel, onClose }: RowDetailsProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (record && !element.open) {
      opener.current = document.activeElement;
      element.showModal();
    } else if (!record && element.open) {
      element.close();
      if (opener.current instanceof HTMLElement) opener.current.focus();
    }
  }, [record]);
  return (
    <dialog
      ref={dialog}
      className="confirm-dialog log-details"
      aria-labelledby="log-details-title"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id="log-details-title">{title}</h2>
      {record && (
        <dl>
          {fields.map((field) => {
            const value = record[field];
            return (
              <div key={field} className="log-field" data-field={field}>
                <dt>{field}</dt>
                <dd>
                  {value !== null && typeof value === 'object' ? (
                    <pre>{JSON.stringify(value, null, 2)}</pre>
                  ) : (
                    <span>{value === null || value === undefined ? '—' : String(value)}</span>
                  )}
                </dd>
              </div>
            );
          })}
        </dl>
      )}
      <div className="dialog-actions">
        <button type="button" onClick={onClose} autoFocus>
          {closeLabel}
        </button>
      </div>
    </dialog>
  );
}
