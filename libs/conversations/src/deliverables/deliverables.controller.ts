import { ForResources, Scopes } from '@fed/auth';
import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { type ConversationOwner, Owner } from '../conversation-owner';
import { ConversationIdParams } from '../conversations/conversations.dto';
import { DeliverableContentQuery } from './deliverables.dto';
import { DeliverablesService } from './deliverables.service';

/** `{base_url}/api/v1/conversations/:conversationId/deliverables`: the output files of the agent's answers. */
@Controller('api/v1/conversations')
// Read by history clients, file clients, and by A2A artifacts and MCP `get_file_content` on the user's behalf.
@Scopes('chat:history', 'chat:file', 'chat:exec', 'a2a:all', 'mcp:all')
// The links those answers hand out are fetched with the same token, issued for MCP or A2A (RFC 8707) or not.
@ForResources('mcp', 'a2a')
export class DeliverablesController {
  constructor(private readonly deliverables: DeliverablesService) {}

  @Get(':conversationId/deliverables/content')
  content(
    @Owner() owner: ConversationOwner,
    @Param() { conversationId }: ConversationIdParams,
    @Query() query: DeliverableContentQuery,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    return this.deliverables.send(owner, conversationId, query, request, response);
  }
}
