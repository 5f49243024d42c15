import { type Edition } from '@fed/config';
import { type InputFileRef } from '@fed/contracts';
import { type ConversationOwner } from '../conversation-owner';
import { type StoredMessageFile } from '../storage';
import { type TurnLibrary } from './turn-library.port';
import { TurnsError } from './turns.errors';
import { type TurnsRepository } from './turns.repository';

/** Resolves input_file parts before a turn starts (docs/files.md "Attaching files"); the first unknown one is a 404. */
export class TurnFiles {
  constructor(
    private readonly repository: Pick<TurnsRepository, 'storedFiles'>,
    private readonly library: TurnLibrary,
    private readonly edition: Edition,
  ) {}

  /** The user message's `files[]`: each file once, in the order of its first part. */
  async resolve(owner: ConversationOwner, references: readonly InputFileRef[]): Promise<StoredMessageFile[]> {
    if (references.length === 0) return [];
    const fileIds = [...new Set(references.flatMap((ref) => ('fileId' in ref ? [ref.fileId.toLowerCase()] : [])))];
    const filepaths = [...new Set(references.flatMap((ref) => ('filepath' in ref ? [ref.filepath] : [])))];
    const [uploads, library] = await Promise.all([
      this.repository.storedFiles(owner, fileIds),
      // The Marketplace edition has no library (spec, endpoint groups): no filepath names a file there.
      filepaths.length === 0 || this.edition === 'marketplace' ? [] : this.library.resolveFilepaths(filepaths),
    ]);
    const byId = new Map(uploads.map((file) => [file.id, file]));
    const byPath = new Map(library.map((item) => [item.filepath, item]));
    const files = new Map<string, StoredMessageFile>();
    for (const ref of references) {
      if ('fileId' in ref) {
        const upload = byId.get(ref.fileId.toLowerCase());
        if (!upload) throw new TurnsError('input_file_not_found', `input_file fileId ${ref.fileId} was not found`);
        if (!files.has(upload.id)) {
          files.set(upload.id, {
            fileId: upload.id,
            mimeType: upload.mimeType,
            ...(upload.width !== null ? { width: upload.width } : {}),
            ...(upload.height !== null ? { height: upload.height } : {}),
            filename: upload.filename,
          });
        }
      } else {
        const item = byPath.get(ref.filepath);
        if (!item) throw new TurnsError('input_file_not_found', `input_file filepath ${ref.filepath} was not found`);
        if (!files.has(item.fileId)) {
          files.set(item.fileId, {
            fileId: item.fileId,
            mimeType: item.mimeType,
            filename: item.filename,
            filepath: item.filepath,
          });
        }
      }
    }
    return [...files.values()];
  }
}
