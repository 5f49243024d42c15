import { type CursorPage, type PageQuery, toCursorPage, toPageParams } from '@fed/contracts';
import { type TurnLibrary, type TurnLibraryFile } from '@fed/conversations';
import { Injectable } from '@nestjs/common';
import { type LibraryItemEntity } from './library.entity';
import { LibraryError } from './library.errors';
import { LibraryRepository } from './library.repository';
import { isLibraryFilepath } from './library.rules';

const LIST = 'library';

/** The library as users see it: its list, and the chat request's `filepath` parts. */
@Injectable()
export class LibraryService implements TurnLibrary {
  constructor(private readonly repository: LibraryRepository) {}

  // In filepath order, A to Z by default: the library is read like a directory listing.
  async list(query: PageQuery): Promise<CursorPage<LibraryItemEntity>> {
    const params = toPageParams(query, { list: LIST, defaultOrder: 'asc' });
    let after: string | undefined;
    if (params.after) {
      // The cursor is not signed: its part goes to SQL only when it has the shape we put there.
      const [filepath, ...rest] = params.after;
      if (!isLibraryFilepath(filepath) || rest.length > 0) {
        throw new LibraryError('invalid_cursor', 'cursor must be a value returned by a previous response of this list');
      }
      after = filepath;
    }
    const rows = await this.repository.page({ limit: params.limit, order: params.order, after });
    return toCursorPage(rows, params, LIST, (row) => [row.filepath]);
  }

  /** The published items at `filepaths`, in one query; a path that names none is left out. */
  async resolveFilepaths(filepaths: readonly string[]): Promise<TurnLibraryFile[]> {
    const wanted = [...new Set(filepaths.filter(isLibraryFilepath))];
    const found = await this.repository.findByFilepaths(wanted);
    return found.map((item) => ({
      fileId: item.id,
      filepath: item.filepath,
      filename: item.filepath.split('/').at(-1) ?? item.filepath,
      mimeType: item.mimeType,
    }));
  }
}
