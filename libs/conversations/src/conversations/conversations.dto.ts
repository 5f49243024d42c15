import { type PageParams, type PageQuery, isUuid, toPageParams } from '@fed/contracts';
import { Checks, IsNotBlank, IsStorableText, MaxCharacters, OrderedCursorPageQuery, withCode } from '@fed/server';
import { Transform } from 'class-transformer';
import { IsDefined, IsIn, IsOptional, IsString, ValidateBy } from 'class-validator';
import { ConversationsError } from './conversations.errors';

export type ConversationMode = 'active' | 'archive';

/** The spec's Conversation object. */
export interface ConversationResponse {
  conversationId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  archived?: true;
  /** Marketplace edition, in lists: the agent the conversation belongs to. */
  agentId?: string;
}

export interface ConversationListResponse {
  conversations: ConversationResponse[];
  hasMore: boolean;
  cursor?: string;
}

/** A validated `GET /v1/conversations` query (the service's view of ListConversationsQuery). */
export interface ConversationListQuery extends PageQuery {
  mode?: ConversationMode;
  /** Case-insensitive substring of the title; empty means no filter. */
  title?: string;
}

export const MAX_TITLE_CHARACTERS = 200;
// The list cursor's key: `updatedAt` to the microsecond (as PostgreSQL keeps it) and the id.
const TIMESTAMP_KEY = /^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$/;

/** The cursor list of a mode: the two stores never accept each other's cursors. */
export const conversationList = (mode: ConversationMode) => `conversations:${mode}`;
/** A history cursor belongs to one conversation. */
export const messageList = (conversationId: string) => `messages:${conversationId}`;

/** A conversationId: a UUID in any letter case, kept lowercase; anything else is a 400 `invalid_conversation_id`. */
export function IsConversationId(message = 'conversationId must be a UUID'): PropertyDecorator {
  const toLowerCase = Transform(({ value }: { value: unknown }) => (isUuid(value) ? value.toLowerCase() : value));
  const check = ValidateBy(
    { name: 'isConversationId', validator: { validate: (value: unknown) => isUuid(value) } },
    withCode('invalid_conversation_id', message),
  );
  return (target, property) => {
    toLowerCase(target, property);
    check(target, property);
  };
}

export class ConversationIdParams {
  @IsConversationId()
  conversationId!: string;
}

const titleFilter = (message: string) => withCode('invalid_parameter', message);
const TITLE_FILTER_MESSAGE = `title must be text of at most ${MAX_TITLE_CHARACTERS} characters`;

/** `GET /v1/conversations`: `limit`, `cursor`, `order`, `title`, `mode`. Other parameters are ignored. */
export class ListConversationsQuery extends OrderedCursorPageQuery implements ConversationListQuery {
  @IsOptional()
  @IsIn(['active', 'archive'], withCode('invalid_parameter', 'mode must be active or archive'))
  mode?: ConversationMode;

  @IsOptional()
  @Checks(
    IsString(titleFilter(TITLE_FILTER_MESSAGE)),
    IsStorableText(titleFilter(TITLE_FILTER_MESSAGE)),
    MaxCharacters(MAX_TITLE_CHARACTERS, titleFilter(TITLE_FILTER_MESSAGE)),
  )
  title?: string;
}

const renameRefusal = (message: string) => withCode('invalid_request', message);

/** `PATCH` body: `title`, 1-200 characters (Unicode code points), storable. Other fields are ignored. */
export class RenameConversationBody {
  @Checks(
    IsDefined(renameRefusal('title is required')),
    IsString(renameRefusal('title must be a string')),
    IsNotBlank(renameRefusal('title must not be empty')),
    MaxCharacters(MAX_TITLE_CHARACTERS, renameRefusal(`title must be at most ${MAX_TITLE_CHARACTERS} characters`)),
    IsStorableText(renameRefusal('title must not contain NUL or unpaired surrogate characters')),
  )
  title!: string;
}

function invalidCursor(): never {
  throw new ConversationsError('invalid_cursor', 'cursor must be a value returned by a previous response of this list');
}

export function isTimestampKey(value: unknown): value is string {
  if (typeof value !== 'string' || !TIMESTAMP_KEY.test(value)) return false;
  // The pattern admits impossible dates (2024-02-30); the database would fail on them.
  const parsed = new Date(value);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 19) === value.slice(0, 19);
}

export function isSeqKey(value: unknown): value is string {
  return typeof value === 'string' && /^[1-9][0-9]{0,17}$/.test(value);
}

// Cursors are not signed: their keys reach SQL only in the shape this list put there.

export function conversationPage(mode: ConversationMode, query: PageQuery): PageParams {
  const page = toPageParams(query, { list: conversationList(mode) });
  if (page.after && (page.after.length !== 2 || !isTimestampKey(page.after[0]) || !isUuid(page.after[1]))) {
    invalidCursor();
  }
  return page;
}

export function historyPage(conversationId: string, query: PageQuery): PageParams {
  const page = toPageParams(query, { list: messageList(conversationId) });
  if (page.after && (page.after.length !== 1 || !isSeqKey(page.after[0]))) invalidCursor();
  return page;
}

export interface ConversationRow {
  id: string;
  title: string;
  createdAt: Date;
  updatedAt: Date;
}

export function toConversationResponse(row: ConversationRow, archived = false): ConversationResponse {
  return {
    conversationId: row.id,
    title: row.title,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    ...(archived ? { archived: true as const } : {}),
  };
}
