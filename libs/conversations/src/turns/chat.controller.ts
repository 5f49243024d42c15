import { type AccessTokenPrincipal, CurrentPrincipal, Scopes } from '@fed/auth';
import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { type Response } from 'express';
import { ConversationIdParams } from '../conversations/conversations.dto';
import { ChatCancelRequestDto, ChatCompletionRequestDto } from './chat-request.dto';
import { TurnsService } from './turns.service';

/**
 * The chat endpoints of document 2: a turn as a server-sent-event stream, its reconnect and cancel.
 * Bodies and path parameters are validated by the application's pipe from their DTO classes.
 */
@Controller('api/v1/chat/completions')
export class ChatController {
  constructor(private readonly turns: TurnsService) {}

  @Post()
  @Scopes('chat:exec')
  start(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Body() body: ChatCompletionRequestDto,
    @Res() response: Response,
  ) {
    return this.turns.start(principal, body, response);
  }

  @Get(':conversationId')
  @Scopes('chat:exec')
  rejoin(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Param() { conversationId }: ConversationIdParams,
    @Headers('last-event-id') lastEventIdHeader: string | undefined,
    @Query('lastEventId') lastEventIdQuery: unknown,
    @Res() response: Response,
  ) {
    return this.turns.rejoin(principal, conversationId, lastEventIdHeader ?? lastEventIdQuery, response);
  }

  @Post(':conversationId/cancel')
  @Scopes('chat:exec')
  @HttpCode(200)
  cancel(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Param() { conversationId }: ConversationIdParams,
    @Body() body: ChatCancelRequestDto,
  ) {
    return this.turns.cancel(principal, conversationId, body.messageId);
  }
}
