import { toCursorPage } from '@fed/contracts';
import { type ConversationOwner } from '../conversation-owner';
import {
  type MessageSearchQuery,
  type SearchResponse,
  searchList,
  searchPage,
  toSearchResultResponse,
} from './search.dto';
import { type SearchRepository } from './search.repository';

/** Message search of document 2: the owner's messages in one mode's conversations, newest first. */
export class SearchService {
  constructor(private readonly repository: SearchRepository) {}

  async search(owner: ConversationOwner, query: MessageSearchQuery): Promise<SearchResponse> {
    const mode = query.mode ?? 'active';
    const list = searchList(mode, query.q);
    const page = searchPage(list, query);
    const rows = await this.repository.find(owner, mode, query.q, page);
    const result = toCursorPage(rows, page, list, (message) => [message.createdAtKey, message.seq]);
    return {
      results: result.items.map((message) => toSearchResultResponse(message, query.q)),
      hasMore: result.hasMore,
      ...(result.cursor ? { cursor: result.cursor } : {}),
    };
  }
}
