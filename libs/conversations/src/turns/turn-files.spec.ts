import { DomainError } from '@fed/contracts';
import { randomUUID } from 'node:crypto';
import { type ConversationOwner } from '../conversation-owner';
import { TurnFiles } from './turn-files';
import { type TurnLibrary } from './turn-library.port';
import { type AttachableFile } from './turns.repository';

describe('turn files (input_file parts at admission)', () => {
  const owner: ConversationOwner = { userId: 'user-1', tenantId: 'tenant-1' };
  const upload: AttachableFile = {
    id: randomUUID(),
    filename: 'photo.png',
    mimeType: 'image/png',
    width: 4,
    height: 3,
  };
  const item = { fileId: randomUUID(), filepath: 'guides/style.md', filename: 'style.md', mimeType: 'text/markdown' };
  let queries: { uploads: string[][]; paths: string[][] };

  const files = (edition: 'saas' | 'marketplace' = 'saas') => {
    queries = { uploads: [], paths: [] };
    const library: TurnLibrary = {
      resolveFilepaths: async (filepaths) => {
        queries.paths.push([...filepaths]);
        return filepaths.includes(item.filepath) ? [item] : [];
      },
    };
    return new TurnFiles(
      {
        storedFiles: async (_owner, ids) => {
          queries.uploads.push([...ids]);
          return ids.includes(upload.id) ? [upload] : [];
        },
      },
      library,
      edition,
    );
  };

  const refusal = (work: Promise<unknown>) =>
    work.then(
      () => undefined,
      (error: unknown) => (error instanceof DomainError ? `${error.toApiError().code}: ${error.message}` : error),
    );

  it("stores each file once in the order of its first part, with an upload's size and a library item's id", async () => {
    const resolved = await files().resolve(owner, [
      { filepath: item.filepath },
      { fileId: upload.id.toUpperCase() },
      { fileId: upload.id },
      { filepath: item.filepath },
    ]);
    expect(resolved).toEqual([
      { fileId: item.fileId, mimeType: 'text/markdown', filename: 'style.md', filepath: 'guides/style.md' },
      { fileId: upload.id, mimeType: 'image/png', width: 4, height: 3, filename: 'photo.png' },
    ]);
    // One query per kind, each reference once.
    expect(queries).toEqual({ uploads: [[upload.id]], paths: [[item.filepath]] });
  });

  it('refuses the first unknown reference with 404 not_found naming it', async () => {
    const unknown = randomUUID();
    expect(await refusal(files().resolve(owner, [{ fileId: upload.id }, { fileId: unknown }]))).toBe(
      `not_found: input_file fileId ${unknown} was not found`,
    );
    expect(await refusal(files().resolve(owner, [{ filepath: 'guides/none.md' }]))).toBe(
      'not_found: input_file filepath guides/none.md was not found',
    );
  });

  it('finds no filepath in the Marketplace edition, which has no library', async () => {
    expect(await refusal(files('marketplace').resolve(owner, [{ filepath: item.filepath }]))).toBe(
      `not_found: input_file filepath ${item.filepath} was not found`,
    );
    expect(queries.paths).toEqual([]);
  });

  it('queries nothing for a message without files', async () => {
    expect(await files().resolve(owner, [])).toEqual([]);
    expect(queries).toEqual({ uploads: [], paths: [] });
  });
});
