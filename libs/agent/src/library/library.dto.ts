import { type CursorPage } from '@fed/contracts';
import { type LibraryItemEntity, type LibraryItemKind } from './library.entity';

// The spec names the list (GET /v1/library) and says an item's `filepath` is what input_file takes, but
// not the record: ours below. Files' bytes are not downloadable here: a user attaches them to a turn.

export interface LibraryItem {
  filepath: string;
  title: string;
  kind: LibraryItemKind;
  description?: string;
  mimeType: string;
  bytes: number;
  createdAt: string;
  /** Prompt templates only: the text to start a message with. */
  content?: string;
}

export interface LibraryList {
  items: LibraryItem[];
  hasMore: boolean;
  cursor?: string;
}

export function toLibraryItem(row: LibraryItemEntity): LibraryItem {
  return {
    filepath: row.filepath,
    title: row.title,
    kind: row.kind,
    ...(row.description ? { description: row.description } : {}),
    mimeType: row.mimeType,
    bytes: Number(row.bytes),
    createdAt: row.createdAt.toISOString(),
    ...(row.kind === 'prompt_template' && row.content !== null ? { content: row.content } : {}),
  };
}

export function toLibraryList(page: CursorPage<LibraryItemEntity>): LibraryList {
  return {
    items: page.items.map(toLibraryItem),
    ...(page.hasMore && page.cursor ? { hasMore: true, cursor: page.cursor } : { hasMore: false }),
  };
}
