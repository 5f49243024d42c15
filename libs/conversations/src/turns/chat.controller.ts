import { Scopes } from '@fed/auth';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { RequestValidationPipe } from '@fed/server';
import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Inject,
  Injectable,
  Param,
  type PipeTransform,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import { type Response } from 'express';
import { type ConversationOwner, Owner } from '../conversation-owner';
import { ConversationIdParams } from '../conversations/conversations.dto';
import { ChatCancelRequestDto, ChatCompletionRequestDto, MarketplaceChatRequestDto } from './chat-request.dto';
import { TurnsService } from './turns.service';

/** The chat request body of the edition: the SaaS fields, or the Marketplace ones (`agentId`). */
@Injectable()
class ChatBodyPipe implements PipeTransform {
  private readonly dto: typeof ChatCompletionRequestDto | typeof MarketplaceChatRequestDto;
  private readonly validation = new RequestValidationPipe();

  constructor(@Inject(SERVICE_CONFIG) config: ServiceConfig) {
    this.dto = config.edition === 'marketplace' ? MarketplaceChatRequestDto : ChatCompletionRequestDto;
  }

  transform(value: unknown): Promise<unknown> {
    return this.validation.transform(value, { type: 'body', metatype: this.dto });
  }
}

/** Document 2's chat endpoints: a turn as SSE, its reconnect and cancel. */
@Controller('api/v1/chat/completions')
export class ChatController {
  constructor(private readonly turns: TurnsService) {}

  @Post()
  @Scopes('chat:exec')
  start(
    @Owner({ startsTurn: true }) owner: ConversationOwner,
    // Declared as an interface: the application's pipe leaves it to ChatBodyPipe, which picks the DTO.
    @Body(ChatBodyPipe) body: ChatCompletionRequestDto | MarketplaceChatRequestDto,
    @Res() response: Response,
  ) {
    return this.turns.start(owner, body, response);
  }

  @Get(':conversationId')
  @Scopes('chat:exec')
  rejoin(
    @Owner() owner: ConversationOwner,
    @Param() { conversationId }: ConversationIdParams,
    @Headers('last-event-id') lastEventIdHeader: string | undefined,
    @Query('lastEventId') lastEventIdQuery: unknown,
    @Res() response: Response,
  ) {
    return this.turns.rejoin(owner, conversationId, lastEventIdHeader ?? lastEventIdQuery, response);
  }

  @Post(':conversationId/cancel')
  @Scopes('chat:exec')
  @HttpCode(200)
  cancel(
    @Owner() owner: ConversationOwner,
    @Param() { conversationId }: ConversationIdParams,
    @Body() body: ChatCancelRequestDto,
  ) {
    return this.turns.cancel(owner, conversationId, body.messageId);
  }
}
