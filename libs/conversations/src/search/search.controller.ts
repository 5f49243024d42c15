import { Scopes } from '@fed/auth';
import { Controller, Get, Query } from '@nestjs/common';
import { type ConversationOwner, Owner } from '../conversation-owner';
import { SearchMessagesQuery } from './search.dto';
import { SearchService } from './search.service';

/** `{base_url}/api/v1/search`: the caller's messages (SaaS scope `chat:history`; none in the Marketplace edition). */
@Controller('api/v1/search')
@Scopes('chat:history')
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @Get()
  messages(@Owner() owner: ConversationOwner, @Query() query: SearchMessagesQuery) {
    return this.search.search(owner, query);
  }
}
