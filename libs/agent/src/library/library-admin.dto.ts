import { Checks, IsStorableText, MaxCharacters, withCode } from '@fed/server';
import { IsDefined, IsOptional, IsString, ValidateBy } from 'class-validator';
import { type LibraryItemEntity, type LibraryItemKind } from './library.entity';
import { DESCRIPTION_MAX, TEMPLATE_MAX, TITLE_MAX, isLibraryFilepath } from './library.rules';

// The operator's view of the library: every item with its id, which names it in a DELETE (a filepath has `/`
// in it, which a path segment would need escaped). The rules of library.rules are the service's; a DTO refusal
// has the same code (invalid_parameter).

const refusal = (message: string) => withCode('invalid_parameter', message);

/** @openapi {"type": "string", "pattern": "^[A-Za-z0-9._/-]{1,255}$"} */
function LibraryFilepath(): PropertyDecorator {
  return Checks(
    IsDefined(refusal('filepath is required')),
    ValidateBy(
      { name: 'isLibraryFilepath', validator: { validate: isLibraryFilepath } },
      refusal(
        'filepath must be 1-255 characters of A-Z, a-z, 0-9, ".", "_", "/" and "-", without empty, "." or ".." segments',
      ),
    ),
  );
}

function TextOf(field: string, max: number): PropertyDecorator {
  return Checks(
    IsString(refusal(`${field} must be a string`)),
    MaxCharacters(max, refusal(`${field} must be at most ${max} characters`)),
    IsStorableText(refusal(`${field} must be text without NUL or unpaired surrogate characters`)),
  );
}

function RequiredTextOf(field: string, max: number): PropertyDecorator {
  return Checks(IsDefined(refusal(`${field} is required`)), TextOf(field, max));
}

export class LibraryItemIdParams {
  @IsString()
  itemId!: string;
}

/** What `platformctl library add-template` takes. */
export class CreateLibraryTemplateBody {
  /** What a chat request's `filepath` part names; unique in the library. */
  @LibraryFilepath()
  filepath!: string;

  /** One line. */
  @RequiredTextOf('title', TITLE_MAX)
  title!: string;

  /** The text a user starts a message with. */
  @RequiredTextOf('text', TEMPLATE_MAX)
  text!: string;

  @IsOptional()
  @TextOf('description', DESCRIPTION_MAX)
  description?: string;
}

export interface LibraryAdminItemResponse {
  itemId: string;
  filepath: string;
  title: string;
  kind: LibraryItemKind;
  description: string | null;
  mimeType: string;
  bytes: number;
  /** Prompt templates only: their text. */
  content?: string;
  createdAt: string;
  updatedAt: string;
}

export interface LibraryAdminListResponse {
  items: LibraryAdminItemResponse[];
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
}

export interface LibraryItemDeletedResponse {
  itemId: string;
  filepath: string;
  deleted: true;
}

export function toLibraryAdminItemResponse(row: LibraryItemEntity): LibraryAdminItemResponse {
  return {
    itemId: row.id,
    filepath: row.filepath,
    title: row.title,
    kind: row.kind,
    description: row.description,
    mimeType: row.mimeType,
    bytes: Number(row.bytes),
    ...(row.kind === 'prompt_template' && row.content !== null ? { content: row.content } : {}),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
