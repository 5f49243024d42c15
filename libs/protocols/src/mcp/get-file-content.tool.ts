import { isStorableText, isUuid } from '@fed/contracts';
import {
  type ConversationOwner,
  type ConversationReads,
  type StoredDeliverable,
  deliverablePathProblem,
} from '@fed/conversations';
import { type Logger } from '@fed/observability';
import { type BlobStore } from '@fed/storage';
import { type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type McpTool, settle } from './mcp-tool';
import { McpToolErrorCode, toolError, toolResult } from './mcp-tool-result';

const TEXT_TYPE = /^(text\/|application\/(json|xml|javascript|x-ndjson|csv|yaml|x-yaml|toml|sql)$)|\+(json|xml)$/;

const input = {
  filepath: z.string().meta({ description: 'A `filepath` of `deliverables[]` or of `executionSteps[].files[]`.' }),
  conversationId: z
    .string()
    .optional()
    .meta({ description: 'Only this conversation (omitted: the newest file with this path).', format: 'uuid' }),
  messageId: z
    .string()
    .optional()
    .meta({ description: 'Only this turn (`messageId` of execute_chat).', format: 'uuid' }),
};

const output = {
  conversationId: z.string(),
  messageId: z.string(),
  filename: z.string(),
  filepath: z.string(),
  mimeType: z.string().optional(),
  size: z.number(),
  source: z.string(),
  isPrimary: z.boolean(),
  createdAt: z.string(),
  downloadUrl: z.string(),
  inline: z.boolean(),
  encoding: z.enum(['utf-8', 'base64']).optional(),
};

type GetFileContentArgs = { filepath: string; conversationId?: string; messageId?: string };

export interface GetFileContentOptions {
  /** Up to this size the content comes inline (MCP_FILE_SIZE_LIMIT_MB), above it only the link. */
  inlineBytes: number;
  /** `{base_url}` of the download link. */
  baseUrl: string;
  logger: Logger;
}

/** `get_file_content`: a deliverable's metadata and link, plus its content when small: text as text, else base64. */
export class GetFileContentTool implements McpTool {
  readonly name = 'get_file_content';

  constructor(
    private readonly reads: ConversationReads,
    private readonly blobs: BlobStore,
    private readonly options: GetFileContentOptions,
  ) {}

  register(server: McpServer, owner: ConversationOwner): void {
    server.registerTool(
      this.name,
      {
        title: 'Get a file the agent wrote',
        description: `A deliverable's metadata, and its content inline when it is at most ${this.options.inlineBytes} bytes; larger ones come as a download link (GET with the same bearer token).`,
        inputSchema: input,
        outputSchema: output,
      },
      (args) => settle(this.options.logger, this.name, () => this.call(owner, args)),
    );
  }

  private async call(owner: ConversationOwner, args: GetFileContentArgs): Promise<CallToolResult> {
    const problem =
      deliverablePathProblem(args.filepath) ??
      (args.conversationId !== undefined && !isUuid(args.conversationId) ? 'conversationId must be a UUID' : null) ??
      (args.messageId !== undefined && !isUuid(args.messageId) ? 'messageId must be a UUID' : null);
    if (problem) return toolError(McpToolErrorCode.InvalidParams, problem);
    const file = await this.reads.newestDeliverable(owner, {
      filepath: args.filepath,
      ...(args.conversationId ? { conversationId: args.conversationId.toLowerCase() } : {}),
      ...(args.messageId ? { messageId: args.messageId.toLowerCase() } : {}),
    });
    if (!file) return toolError(McpToolErrorCode.NotFound, 'no file with this filepath');
    const metadata = this.metadataOf(file);
    if (metadata.size > this.options.inlineBytes) return toolResult({ ...metadata, inline: false });
    const bytes = await this.read(file.blobKey, metadata.size);
    const text = textOf(bytes, file.mimeType);
    if (text !== undefined)
      return toolResult({ ...metadata, inline: true, encoding: 'utf-8' }, [{ type: 'text', text }]);
    return toolResult({ ...metadata, inline: true, encoding: 'base64' }, [
      {
        type: 'resource',
        resource: {
          uri: metadata.downloadUrl,
          mimeType: file.mimeType ?? 'application/octet-stream',
          blob: bytes.toString('base64'),
        },
      },
    ]);
  }

  private metadataOf(file: StoredDeliverable) {
    const query = new URLSearchParams({ messageId: file.messageId, filepath: file.filepath });
    return {
      conversationId: file.conversationId,
      messageId: file.messageId,
      filename: file.filename,
      filepath: file.filepath,
      ...(file.mimeType ? { mimeType: file.mimeType } : {}),
      size: Number(file.size),
      source: file.source,
      isPrimary: file.isPrimary,
      createdAt: file.createdAt.toISOString(),
      downloadUrl: `${this.options.baseUrl}/api/v1/conversations/${file.conversationId}/deliverables/content?${query}`,
    };
  }

  /** The whole blob; never more than `size` bytes are held, whatever the store returns. */
  private async read(blobKey: string, size: number): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let read = 0;
    for await (const chunk of await this.blobs.get(blobKey)) {
      const bytes = Buffer.from(chunk as Uint8Array);
      read += bytes.length;
      if (read > size) throw new Error(`the blob ${blobKey} holds more than its row's ${size} bytes`);
      chunks.push(bytes);
    }
    return Buffer.concat(chunks, read);
  }
}

/** The content as text when its type is textual (or unknown) and it is valid UTF-8 a JSON string can carry. */
export function textOf(bytes: Buffer, mimeType: string | null): string | undefined {
  const type = mimeType?.split(';', 1)[0]?.trim().toLowerCase();
  if (type !== undefined && !TEXT_TYPE.test(type)) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  return isStorableText(text) ? text : undefined;
}
