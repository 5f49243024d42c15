import { type CatalogService } from '@fed/agent';
import { type Logger } from '@fed/observability';
import { type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type McpTool, settle } from './mcp-tool';
import { toolResult } from './mcp-tool-result';

const PAGE = 100;

const output = {
  personas: z.array(z.object({ key: z.string(), name: z.string(), description: z.string() })),
};

/** `list_personas`: the agent catalog's personas, as the chat API's `GET /v1/personas` lists them (A to Z). */
export class ListPersonasTool implements McpTool {
  readonly name = 'list_personas';

  constructor(
    private readonly catalog: CatalogService,
    private readonly logger: Logger,
  ) {}

  register(server: McpServer): void {
    server.registerTool(
      this.name,
      {
        title: 'List personas',
        description: "The personas the agent can take on; pass one's key as execute_chat's personaKey.",
        outputSchema: output,
      },
      () => settle(this.logger, this.name, () => this.call()),
    );
  }

  private async call(): Promise<CallToolResult> {
    const personas: { key: string; name: string; description: string }[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.catalog.listPersonas({ limit: PAGE, ...(cursor ? { cursor } : {}) });
      personas.push(...page.items.map(({ key, name, description }) => ({ key, name, description })));
      cursor = page.hasMore ? page.cursor : undefined;
    } while (cursor);
    return toolResult({ personas });
  }
}
