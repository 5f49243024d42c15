import { ForResources, Scopes } from '@fed/auth';
import { Controller, Get, Header, Param } from '@nestjs/common';
import { type ConversationOwner, Owner } from '../conversation-owner';
import { UiResourceParams } from './ui-resources.dto';
import { UiResourcesService } from './ui-resources.service';

/** The guard checks the scope before the validation pipe reads the path, as the spec's error order requires. */
@Controller('api/v1/conversations')
export class UiResourcesController {
  constructor(private readonly resources: UiResourcesService) {}

  @Get(':conversationId/ui-resources/:toolCallId')
  @Scopes('chat:exec', 'a2a:all', 'mcp:all')
  // Fetched with the token of the MCP or A2A answer that named it, issued for that resource (RFC 8707) or not.
  @ForResources('mcp', 'a2a')
  @Header('Cache-Control', 'no-store')
  html(@Owner() owner: ConversationOwner, @Param() { conversationId, toolCallId }: UiResourceParams) {
    return this.resources.html(owner, conversationId, toolCallId);
  }
}
