import { useCallback, useRef, useState } from 'react';
import { useAuth } from '../../../lib/auth/auth-context';
import {
  MAX_ATTACHMENTS,
  type TransferFailure,
  TransferError,
  type Upload,
  type UploadedFile,
  uploadFile,
} from './upload';

export interface Attachment {
  key: string;
  file: File;
  /** 0 to 1 while uploading. */
  progress: number;
  uploaded?: UploadedFile;
  error?: Exclude<TransferFailure, { kind: 'cancelled' }>;
  /** An object URL for an image, to preview it. */
  preview?: string;
}

let keys = 0;

/** The files attached to the next message: each uploaded at once, with progress, cancel and removal. */
export function useAttachments() {
  const auth = useAuth();
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  const uploads = useRef(new Map<string, Upload>());
  const update = (key: string, change: Partial<Attachment>) =>
    setAttachments((all) => all.map((a) => (a.key === key ? { ...a, ...change } : a)));

  const add = useCallback(
    async (files: File[]) => {
      const room = MAX_ATTACHMENTS - attachments.length;
      const added = files.slice(0, Math.max(room, 0)).map((file) => ({
        key: `a${++keys}`,
        file,
        progress: 0,
        ...(file.type.startsWith('image/') ? { preview: URL.createObjectURL(file) } : {}),
      }));
      setAttachments((all) => [...all, ...added]);
      const token = await auth.accessToken();
      for (const attachment of added) {
        const upload = uploadFile(attachment.file, token, (progress) => update(attachment.key, { progress }));
        uploads.current.set(attachment.key, upload);
        upload.done
          .then((uploaded) => update(attachment.key, { uploaded, progress: 1 }))
          .catch((error: unknown) => {
            const failure: TransferFailure = error instanceof TransferError ? error.failure : { kind: 'lost' };
            // A cancelled one has left the list already.
            if (failure.kind !== 'cancelled') update(attachment.key, { error: failure });
          })
          .finally(() => uploads.current.delete(attachment.key));
      }
    },
    [auth, attachments.length],
  );

  const remove = useCallback((key: string) => {
    uploads.current.get(key)?.cancel();
    setAttachments((all) => {
      const gone = all.find((a) => a.key === key);
      if (gone?.preview) URL.revokeObjectURL(gone.preview);
      return all.filter((a) => a.key !== key);
    });
  }, []);

  const clear = useCallback(() => setAttachments([]), []);
  const uploading = attachments.some((a) => !a.uploaded && !a.error);
  return { attachments, add, remove, clear, uploading };
}
