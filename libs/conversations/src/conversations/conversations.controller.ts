import { type AccessTokenPrincipal, CurrentPrincipal, Scopes } from '@fed/auth';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { parseConversationId, parseListQuery, parseMessagesQuery, parseRenameBody } from './conversations.dto';
import { ownerOf } from '../conversation-owner';
import { ConversationsService } from './conversations.service';

/** `{base_url}/api/v1/conversations`: the user's conversations, active and archived. */
@Controller('api/v1/conversations')
@Scopes('chat:history')
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Get()
  list(@CurrentPrincipal() principal: AccessTokenPrincipal, @Query() query: Record<string, unknown>) {
    return this.conversations.list(ownerOf(principal), parseListQuery(query));
  }

  @Get(':conversationId/messages')
  messages(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Param('conversationId') rawId: string,
    @Query() query: Record<string, unknown>,
  ) {
    const conversationId = parseConversationId(rawId);
    return this.conversations.messages(ownerOf(principal), conversationId, parseMessagesQuery(query, conversationId));
  }

  @Patch(':conversationId')
  rename(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Param('conversationId') rawId: string,
    @Body() body: unknown,
  ) {
    const conversationId = parseConversationId(rawId);
    return this.conversations.rename(ownerOf(principal), conversationId, parseRenameBody(body));
  }

  @Delete(':conversationId')
  delete(@CurrentPrincipal() principal: AccessTokenPrincipal, @Param('conversationId') rawId: string) {
    return this.conversations.delete(ownerOf(principal), parseConversationId(rawId));
  }

  @Post(':conversationId/restore')
  @HttpCode(200)
  restore(@CurrentPrincipal() principal: AccessTokenPrincipal, @Param('conversationId') rawId: string) {
    return this.conversations.restore(ownerOf(principal), parseConversationId(rawId));
  }
}
