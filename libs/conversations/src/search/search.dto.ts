import { type PageParams, type PageQuery, isStorableText, toPageParams } from '@fed/contracts';
import { Checks, CursorPageQuery, IsNotBlank, MaxCharacters, withCode } from '@fed/server';
import { Transform } from 'class-transformer';
import { IsDefined, IsIn, IsOptional, IsString, ValidateBy } from 'class-validator';
import { createHash } from 'node:crypto';
import { type ConversationMode, isSeqKey, isTimestampKey } from '../conversations/conversations.dto';
import { type Sender } from '../storage/message.entity';
import { onlyExcludes } from './search-query';
import { SearchError } from './search.errors';
import { type SnippetWindow, toSnippet } from './search-snippet';

export const MAX_QUERY_CHARACTERS = 200;

/** A validated `GET /v1/search` query (the service's view of SearchMessagesQuery). */
export interface MessageSearchQuery extends PageQuery {
  /** Trimmed, 1-200 characters. */
  q: string;
  mode?: ConversationMode;
}

export interface SearchResultResponse {
  conversationId: string;
  conversationTitle: string;
  messageId: string;
  sender: Sender;
  /** HTML: escaped text, matches in `<mark>`, `…` where the message was cut (docs/chat.md, Message search). */
  snippet: string;
  createdAt: string;
}

export interface SearchResponse {
  results: SearchResultResponse[];
  hasMore: boolean;
  cursor?: string;
}

const queryRefusal = (message: string) => withCode('invalid_parameter', message);
// Control characters other than white space (tab, line breaks), C1 included.
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f]/;

const trimmed = Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/** `GET /v1/search`: `q`, `mode`, `limit`, `cursor` (no `order`: newest first). Other parameters are ignored. */
export class SearchMessagesQuery extends CursorPageQuery implements MessageSearchQuery {
  @trimmed
  @Checks(
    IsDefined(queryRefusal('q is required')),
    IsString(queryRefusal('q must be given once, as text')),
    ValidateBy(
      { name: 'isSearchableText', validator: { validate: (value: unknown) => isSearchableText(value) } },
      queryRefusal('q must not contain NUL, unpaired surrogate or control characters'),
    ),
    IsNotBlank(queryRefusal('q must not be empty')),
    MaxCharacters(MAX_QUERY_CHARACTERS, queryRefusal(`q must be at most ${MAX_QUERY_CHARACTERS} characters`)),
    ValidateBy(
      {
        name: 'findsSomething',
        validator: { validate: (value: unknown) => typeof value !== 'string' || !onlyExcludes(value) },
      },
      queryRefusal('q must name a word or phrase to find, on each side of "or": exclusions alone match everything'),
    ),
  )
  q!: string;

  @IsOptional()
  @IsIn(['active', 'archive'], withCode('invalid_parameter', 'mode must be active or archive'))
  mode?: ConversationMode;
}

function isSearchableText(value: unknown): boolean {
  return typeof value === 'string' && isStorableText(value) && !CONTROL.test(value);
}

/** A search's cursor list: mode and query digest, so another mode or query refuses the cursor. */
export function searchList(mode: ConversationMode, q: string): string {
  return `search:${mode}:${createHash('sha256').update(q).digest('base64url').slice(0, 16)}`;
}

/** The page of a search; its cursor's key is the last message's `createdAt` (to the microsecond) and `seq`. */
export function searchPage(list: string, query: PageQuery): PageParams {
  const page = toPageParams(query, { list });
  if (page.after && (page.after.length !== 2 || !isTimestampKey(page.after[0]) || !isSeqKey(page.after[1]))) {
    throw new SearchError('invalid_cursor', 'cursor must be a value returned by a previous response of this list');
  }
  return page;
}

export interface FoundMessage {
  id: string;
  conversationId: string;
  conversationTitle: string;
  sender: Sender;
  createdAt: Date;
  /** `createdAt` to the microsecond and `seq`: the cursor's key. */
  createdAtKey: string;
  seq: string;
  window: SnippetWindow;
}

export function toSearchResultResponse(message: FoundMessage, q: string): SearchResultResponse {
  return {
    conversationId: message.conversationId,
    conversationTitle: message.conversationTitle,
    messageId: message.id,
    sender: message.sender,
    snippet: toSnippet(message.window, q),
    createdAt: message.createdAt.toISOString(),
  };
}
