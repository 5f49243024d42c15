import { type PageParams, type PageQuery, isPrintableLine, isUuid, toPageParams } from '@fed/contracts';
import { OrderedCursorPageQuery, withCode } from '@fed/server';
import { Transform } from 'class-transformer';
import { ValidateBy } from 'class-validator';
import { FilesError } from './files.errors';

/** The spec's UploadedFile (201 of `POST /v1/files`). */
export interface UploadedFileResponse {
  fileId: string;
  filename: string;
  bytes: number;
  createdAt: string;
  width?: number;
  height?: number;
}

/** An item of `GET /v1/files`. */
export interface FileResponse extends UploadedFileResponse {
  mimeType: string;
  /** Marketplace edition: the agent the file belongs to. */
  agentId?: string;
}

export interface FileListResponse {
  files: FileResponse[];
  hasMore: boolean;
  cursor?: string;
}

export interface FileDeletedResponse {
  fileId: string;
  deleted: true;
}

/** A `stored` row as the service reads it. */
export interface FileRow {
  id: string;
  filename: string;
  bytes: string | number;
  mimeType: string;
  width: number | null;
  height: number | null;
  blobKey: string;
  createdAt: Date;
}

export interface ListedFile extends FileRow {
  /** `createdAt` to the microsecond, the cursor's key with the id. */
  createdAtKey: string;
  /** The Marketplace agent of the row's owner key ('' in SaaS). */
  agentId: string;
}

export const MAX_FILENAME_CHARACTERS = 255;
export const FILE_LIST = 'files';
const TIMESTAMP_KEY = /^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$/;

/** The `:fileId` of a file's routes: a UUID in any letter case, kept lowercase; else 400 `invalid_parameter`. */
export class FileIdParams {
  @Transform(({ value }: { value: unknown }) => (isUuid(value) ? value.toLowerCase() : value))
  @ValidateBy(
    { name: 'isFileId', validator: { validate: (value: unknown) => isUuid(value) } },
    withCode('invalid_parameter', 'file_id must be a UUID'),
  )
  fileId!: string;
}

/** `GET /v1/files`: `limit`, `cursor`, `order`. Other parameters are ignored. */
export class ListFilesQuery extends OrderedCursorPageQuery {}

/** Why `filename` is refused, or null: 1-255 code points, storable, one line, no path separators. */
export function filenameRefusal(filename: string): string | null {
  const characters = [...filename].length;
  if (filename.trim().length === 0) return 'filename must not be empty';
  if (characters > MAX_FILENAME_CHARACTERS) return `filename must be at most ${MAX_FILENAME_CHARACTERS} characters`;
  if (!isPrintableLine(filename) || /[\u0080-\u009f]/.test(filename)) {
    return 'filename must not contain control, NUL or unpaired surrogate characters';
  }
  if (/[/\\]/.test(filename)) return 'filename must not contain / or \\';
  return null;
}

// Cursors are not signed: their keys reach SQL only in the shape this list put there.
export function filePage(query: PageQuery): PageParams {
  const page = toPageParams(query, { list: FILE_LIST });
  const [createdAtKey, id] = page.after ?? [];
  if (page.after && (page.after.length !== 2 || !isTimestampKey(createdAtKey) || !isUuid(id))) {
    throw new FilesError('invalid_cursor', 'cursor must be a value returned by a previous response of this list');
  }
  return page;
}

function isTimestampKey(value: unknown): value is string {
  if (typeof value !== 'string' || !TIMESTAMP_KEY.test(value)) return false;
  // The pattern admits impossible dates (2024-02-30); the database would fail on them.
  const parsed = new Date(value);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 19) === value.slice(0, 19);
}

function dimensionsOf(row: FileRow): { width?: number; height?: number } {
  return row.width !== null && row.height !== null ? { width: row.width, height: row.height } : {};
}

export function toUploadedFileResponse(row: FileRow): UploadedFileResponse {
  return {
    fileId: row.id,
    filename: row.filename,
    bytes: Number(row.bytes),
    createdAt: row.createdAt.toISOString(),
    ...dimensionsOf(row),
  };
}

export function toFileResponse(row: FileRow): FileResponse {
  return {
    fileId: row.id,
    filename: row.filename,
    bytes: Number(row.bytes),
    mimeType: row.mimeType,
    createdAt: row.createdAt.toISOString(),
    ...dimensionsOf(row),
  };
}
