import { Scopes } from '@fed/auth';
import { OrderedCursorPageQuery } from '@fed/server';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ConversationIdParams, ListConversationsQuery, RenameConversationBody } from './conversations.dto';
import { type ConversationOwner, type ListOwner, Owner } from '../conversation-owner';
import { ConversationsService } from './conversations.service';

// Requests are validated by the application's pipe from the DTO classes of the parameters.

/** `{base_url}/api/v1/conversations`: the user's conversations, active and archived. */
@Controller('api/v1/conversations')
@Scopes('chat:history')
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Get()
  list(@Owner({ list: true }) owner: ListOwner, @Query() query: ListConversationsQuery) {
    return this.conversations.list(owner, query);
  }

  @Get(':conversationId/messages')
  messages(
    @Owner() owner: ConversationOwner,
    @Param() { conversationId }: ConversationIdParams,
    @Query() query: OrderedCursorPageQuery,
  ) {
    return this.conversations.messages(owner, conversationId, query);
  }

  @Patch(':conversationId')
  rename(
    @Owner() owner: ConversationOwner,
    @Param() { conversationId }: ConversationIdParams,
    @Body() { title }: RenameConversationBody,
  ) {
    return this.conversations.rename(owner, conversationId, title);
  }

  @Delete(':conversationId')
  delete(@Owner() owner: ConversationOwner, @Param() { conversationId }: ConversationIdParams) {
    return this.conversations.delete(owner, conversationId);
  }

  @Post(':conversationId/restore')
  @HttpCode(200)
  restore(@Owner() owner: ConversationOwner, @Param() { conversationId }: ConversationIdParams) {
    return this.conversations.restore(owner, conversationId);
  }
}
