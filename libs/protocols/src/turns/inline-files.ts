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

/**
 * Stores the files a protocol request carried inline as uploads of the caller, then runs `use` with them
 * (the turn's start). When `use` throws (the conversation is not the caller's, a turn is running, a file
 * cannot be read), or storing one fails, the files stored so far are deleted: a refused request leaves
 * nothing behind in the caller's files.
 */
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
