import { type SortOrder } from '@fed/contracts';
import { modifyReturning } from '@fed/persistence';
import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { LibraryItemEntity } from './library.entity';

/** A page request whose cursor position has been checked: the `filepath` of the last item shown. */
export interface LibraryPageQuery {
  limit: number;
  order: SortOrder;
  after?: string;
}

/** What a chat request's `filepath` part resolves to. */
export interface LibraryReference {
  id: string;
  filepath: string;
  title: string;
  mimeType: string;
}

/** The only place that queries the library (schema `agent`). Platform-wide: no user or tenant column. */
@Injectable()
export class LibraryRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** `limit + 1` items after `after`, in filepath order (the unique index). */
  page(query: LibraryPageQuery): Promise<LibraryItemEntity[]> {
    const direction = query.order === 'asc' ? 'ASC' : 'DESC';
    const builder = this.dataSource.manager.createQueryBuilder(LibraryItemEntity, 'item');
    if (query.after !== undefined) {
      builder.where(`item.filepath ${direction === 'ASC' ? '>' : '<'} :after COLLATE "C"`, { after: query.after });
    }
    return builder
      .orderBy('item.filepath COLLATE "C"', direction)
      .limit(query.limit + 1)
      .getMany();
  }

  async findByFilepaths(filepaths: readonly string[]): Promise<LibraryReference[]> {
    if (filepaths.length === 0) return [];
    return (await this.dataSource.query(
      `SELECT "id", "filepath", "title", "mime_type" AS "mimeType" FROM "agent"."library_items" WHERE "filepath" = ANY($1::text[])`,
      [[...filepaths]],
    )) as LibraryReference[];
  }

  findByIds(ids: readonly string[]): Promise<LibraryItemEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.dataSource.manager.find(LibraryItemEntity, { where: { id: In([...ids]) } });
  }

  findByFilepath(filepath: string): Promise<LibraryItemEntity | null> {
    return this.dataSource.manager.findOne(LibraryItemEntity, { where: { filepath } });
  }

  all(): Promise<LibraryItemEntity[]> {
    return this.dataSource.manager
      .createQueryBuilder(LibraryItemEntity, 'item')
      .orderBy('item.filepath COLLATE "C"', 'ASC')
      .getMany();
  }

  /** A numbered page in filepath order (as `all`), and how many items there are. */
  numberedPage(offset: number, limit: number): Promise<[LibraryItemEntity[], number]> {
    return this.dataSource.manager
      .createQueryBuilder(LibraryItemEntity, 'item')
      .orderBy('item.filepath COLLATE "C"', 'ASC')
      .offset(offset)
      .limit(limit)
      .getManyAndCount();
  }

  /** False when the filepath is taken (atomic: the unique index decides). */
  async insert(item: LibraryItemEntity): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `INSERT INTO "agent"."library_items"
         ("id", "filepath", "title", "kind", "description", "mime_type", "bytes", "blob_key", "content", "created_at", "updated_at")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT ("filepath") DO NOTHING RETURNING "id"`,
      [
        item.id,
        item.filepath,
        item.title,
        item.kind,
        item.description,
        item.mimeType,
        item.bytes,
        item.blobKey,
        item.content,
        item.createdAt,
        item.updatedAt,
      ],
    )) as unknown[];
    return rows.length > 0;
  }

  /** Deletes the item at `filepath` and returns it (its blob is the caller's to delete); null when absent. */
  async deleteByFilepath(filepath: string): Promise<{ id: string; blobKey: string | null } | null> {
    const [row] = await modifyReturning<{ id: string; blob_key: string | null }>(
      this.dataSource,
      `DELETE FROM "agent"."library_items" WHERE "filepath" = $1 RETURNING "id", "blob_key"`,
      [filepath],
    );
    return row ? { id: row.id, blobKey: row.blob_key } : null;
  }

  /** Deletes the item `id` (a UUID) and returns it (its blob is the caller's to delete); null when absent. */
  async deleteById(id: string): Promise<{ id: string; filepath: string; blobKey: string | null } | null> {
    const [row] = await modifyReturning<{ id: string; filepath: string; blob_key: string | null }>(
      this.dataSource,
      `DELETE FROM "agent"."library_items" WHERE "id" = $1 RETURNING "id", "filepath", "blob_key"`,
      [id],
    );
    return row ? { id: row.id, filepath: row.filepath, blobKey: row.blob_key } : null;
  }

  /** Which of `keys` an item's `blob_key` names (the sweep's question), in one query. */
  async referencedBlobKeys(keys: readonly string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = (await this.dataSource.query(
      `SELECT "blob_key" FROM "agent"."library_items" WHERE "blob_key" = ANY($1::text[])`,
      [[...keys]],
    )) as { blob_key: string }[];
    return new Set(rows.map((row) => row.blob_key));
  }
}
