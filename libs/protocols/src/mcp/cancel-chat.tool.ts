import { isUuid } from '@fed/contracts';
import { type ConversationOwner, type TurnStarter } from '@fed/conversations';
import { type Logger } from '@fed/observability';
import { type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type McpTool, settle } from './mcp-tool';
import { McpToolErrorCode, toolError, toolResult } from './mcp-tool-result';

const input = {
  conversationId: z.string().meta({ description: 'The conversation whose running turn to stop.', format: 'uuid' }),
};

const output = { conversationId: z.string(), cancelled: z.literal(true) };

/** `cancel_chat` (docs/chat.md "Cancel"): a waiting `execute_chat` returns what the turn had, marked `cancelled`. */
export class CancelChatTool implements McpTool {
  readonly name = 'cancel_chat';

  constructor(
    private readonly starter: TurnStarter,
    private readonly logger: Logger,
  ) {}

  register(server: McpServer, owner: ConversationOwner): void {
    server.registerTool(
      this.name,
      {
        title: 'Cancel a running turn',
        description: 'Stops the turn a conversation is running; its execute_chat call returns what it had.',
        inputSchema: input,
        outputSchema: output,
      },
      (args) => settle(this.logger, this.name, () => this.call(owner, args.conversationId)),
    );
  }

  private async call(owner: ConversationOwner, conversationId: string): Promise<CallToolResult> {
    if (!isUuid(conversationId)) return toolError(McpToolErrorCode.InvalidParams, 'conversationId must be a UUID');
    const cancelled = await this.starter.cancel(owner, conversationId.toLowerCase());
    return toolResult({ ...cancelled });
  }
}
