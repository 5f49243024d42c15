import { type ConversationOwner, type FilesService } from '@fed/conversations';

export interface InlineFile {
  filename: string;
  bytes: Buffer;
}

export interface StoredInlineFile {
  fileId: string;
  filename: string;
  mimeType: string;
}

/** Stores inline files as the caller's uploads, then runs `use`; on any failure the files stored so far are deleted. */
export async function withInlineFiles<T>(
  files: FilesService,
  owner: ConversationOwner,
  inline: readonly InlineFile[],
  use: (stored: StoredInlineFile[]) => Promise<T>,
): Promise<T> {
  const stored: StoredInlineFile[] = [];
  try {
    for (const file of inline) {
      const upload = await files.storeBytes(owner, file);
      stored.push({ fileId: upload.fileId, filename: upload.filename, mimeType: upload.mimeType });
    }
    return await use(stored);
  } catch (error) {
    await Promise.all(stored.map((file) => files.delete(owner, file.fileId).catch(() => undefined)));
    throw error;
  }
}
