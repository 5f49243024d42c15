import { useEffect, useId, useRef, useState } from 'react';
import { ModalDialog } from './ModalDialog';

export interface SecretDialogTexts {
  title: string;
  label: string;
  warning: string;
  copy: string;
  copied: string;
  copyFailed: string;
  close: string;
}

interface SecretDialogProps {
  /** The secret while it is shown; undefined closes the dialog. Its holder forgets it on `onClose`. */
  secret: string | undefined;
  /** What the secret belongs to (a client id, a key's name). */
  subject: string;
  texts: SecretDialogTexts;
  onClose(): void;
}

/**
 * A secret shown once (a client secret, a gateway key): a warning, the secret selectable in a read-only field and
 * a copy button. Nothing here keeps it: the caller holds it in component state and drops it on close.
 */
export function SecretDialog({ secret, subject, texts, onClose }: SecretDialogProps) {
  const id = useId();
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  useEffect(() => setCopied('no'), [secret]);
  const copy = async () => {
    if (secret === undefined) return;
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('yes');
    } catch {
      setCopied('failed');
      field.current?.select();
    }
  };
  return (
    <ModalDialog open={secret !== undefined} title={texts.title} className="secret-dialog" onClose={onClose}>
      <p className="secret-subject">{subject}</p>
      <p className="secret-warning" role="note" id={`${id}-warning`}>
        {texts.warning}
      </p>
      <label htmlFor={`${id}-secret`}>{texts.label}</label>
      <div className="secret-field">
        <input
          ref={field}
          id={`${id}-secret`}
          readOnly
          value={secret ?? ''}
          spellCheck={false}
          autoComplete="off"
          aria-describedby={`${id}-warning`}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" onClick={() => void copy()} data-autofocus>
          {texts.copy}
        </button>
      </div>
      <p role="status" className="secret-copied">
        {copied === 'yes' ? texts.copied : copied === 'failed' ? texts.copyFailed : ''}
      </p>
      <div className="dialog-actions">
        <button type="button" onClick={onClose}>
          {texts.close}
        </button>
      </div>
    </ModalDialog>
  );
}
