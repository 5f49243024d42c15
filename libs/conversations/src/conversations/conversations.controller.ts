import { type AccessTokenPrincipal, CurrentPrincipal, Scopes } from '@fed/auth';
import { OrderedCursorPageQuery } from '@fed/server';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ConversationIdParams, ListConversationsQuery, RenameConversationBody } from './conversations.dto';
import { ownerOf } from '../conversation-owner';
import { ConversationsService } from './conversations.service';

// Requests are validated by the application's pipe from the DTO classes of the parameters.

/** `{base_url}/api/v1/conversations`: the user's conversations, active and archived. */
@Controller('api/v1/conversations')
@Scopes('chat:history')
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Get()
  list(@CurrentPrincipal() principal: AccessTokenPrincipal, @Query() query: ListConversationsQuery) {
    return this.conversations.list(ownerOf(principal), query);
  }

  @Get(':conversationId/messages')
  messages(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Param() { conversationId }: ConversationIdParams,
    @Query() query: OrderedCursorPageQuery,
  ) {
    return this.conversations.messages(ownerOf(principal), conversationId, query);
  }

  @Patch(':conversationId')
  rename(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Param() { conversationId }: ConversationIdParams,
    @Body() { title }: RenameConversationBody,
  ) {
    return this.conversations.rename(ownerOf(principal), conversationId, title);
  }

  @Delete(':conversationId')
  delete(@CurrentPrincipal() principal: AccessTokenPrincipal, @Param() { conversationId }: ConversationIdParams) {
    return this.conversations.delete(ownerOf(principal), conversationId);
  }

  @Post(':conversationId/restore')
  @HttpCode(200)
  restore(@CurrentPrincipal() principal: AccessTokenPrincipal, @Param() { conversationId }: ConversationIdParams) {
    return this.conversations.restore(ownerOf(principal), conversationId);
  }
}
