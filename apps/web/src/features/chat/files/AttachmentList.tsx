import type { Attachment } from './use-attachments';

const size = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 ** 2
      ? `${(bytes / 1024).toFixed(0)} KB`
      : `${(bytes / 1024 ** 2).toFixed(1)} MB`;

/** The composer's attachments: name, size, progress while uploading, and a button to cancel or remove each. */
export function AttachmentList({ attachments, onRemove }: { attachments: Attachment[]; onRemove(key: string): void }) {
  if (attachments.length === 0) return null;
  return (
    <ul className="attachments" aria-label="Attached files">
      {attachments.map((a) => (
        <li key={a.key} className="attachment" data-state={a.error ? 'failed' : a.uploaded ? 'uploaded' : 'uploading'}>
          {a.preview && <img src={a.preview} alt="" className="attachment-preview" />}
          <span className="attachment-name">{a.file.name}</span> <span className="muted">{size(a.file.size)}</span>
          {!a.uploaded && !a.error && <progress max={1} value={a.progress} aria-label={`Uploading ${a.file.name}`} />}
          {a.error && <span role="alert">{a.error}</span>}
          <button
            type="button"
            aria-label={`${a.uploaded || a.error ? 'Remove' : 'Cancel'} ${a.file.name}`}
            onClick={() => onRemove(a.key)}
          >
            {a.uploaded || a.error ? 'Remove' : 'Cancel'}
          </button>
        </li>
      ))}
    </ul>
  );
}
