import { useFormats } from '../../../lib/i18n/format';
import { useMessages } from '../../../lib/i18n/messages';
import { type ChatMessages, chatText } from '../messages';
import type { Attachment } from './use-attachments';

// The platform's own refusal is shown as it came; the app words the rest.
function failureText(t: ChatMessages, failure: NonNullable<Attachment['error']>): string {
  return failure.kind === 'refused' ? (failure.message ?? t.uploadRefused(failure.status)) : t.uploadLost;
}

/** The composer's attachments: name, size, progress while uploading, and a button to cancel or remove each. */
export function AttachmentList({ attachments, onRemove }: { attachments: Attachment[]; onRemove(key: string): void }) {
  const t = useMessages(chatText);
  const format = useFormats();
  if (attachments.length === 0) return null;
  return (
    <ul className="attachments" aria-label={t.attachedFiles}>
      {attachments.map((a) => (
        <li key={a.key} className="attachment" data-state={a.error ? 'failed' : a.uploaded ? 'uploaded' : 'uploading'}>
          {a.preview && <img src={a.preview} alt="" className="attachment-preview" />}
          <span className="attachment-name">{a.file.name}</span>{' '}
          <span className="muted">{format.bytes(a.file.size)}</span>
          {!a.uploaded && !a.error && <progress max={1} value={a.progress} aria-label={t.uploading(a.file.name)} />}
          {a.error && <span role="alert">{failureText(t, a.error)}</span>}
          <button
            type="button"
            aria-label={a.uploaded || a.error ? t.removeNamed(a.file.name) : t.cancelNamed(a.file.name)}
            onClick={() => onRemove(a.key)}
          >
            {a.uploaded || a.error ? t.remove : t.cancel}
          </button>
        </li>
      ))}
    </ul>
  );
}
