import { type RunStream, STREAM_START } from '@fed/bus';
import { CHAT_TURN_DEFAULTS, type ChatTurnRequest, isStorableText, isUuid } from '@fed/contracts';
import {
  type ConversationOwner,
  type ConversationReads,
  type FilesService,
  type StartedTurn,
  type TurnStarter,
} from '@fed/conversations';
import { type Logger } from '@fed/observability';
import { heartbeatsEvery } from '@fed/server';
import { type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { followRun, withInlineFiles } from '../turns';
import { TurnCollector } from './execute-chat.result';
import { type McpTool, type ToolExtra, settle } from './mcp-tool';
import { McpToolErrorCode, toolError, toolResult } from './mcp-tool-result';

/** Document 2, Limits: the processed message text. */
const MAX_PROMPT_BYTES = 1024 * 1024;
/** Document 2, Limits: input files per request. */
const MAX_FILES = 20;
// One character class and at most two `=` at the end: a repeated group overflows the stack on megabytes.
const BASE64_ALPHABET = /^[A-Za-z0-9+/]*={0,2}$/;
// Turns that end only on a model's failure to answer again are worth retrying; a blocked message is not.
const PERMANENT_TURN_FAILURES = new Set(['content_blocked']);

const inputFile = z.object({
  filename: z.string().meta({ description: 'The file name (at most 255 characters, no "/" or "\\").' }),
  data: z.string().meta({ description: "The file's bytes, base64-encoded.", contentEncoding: 'base64' }),
  mimeType: z
    .string()
    .optional()
    .meta({ description: 'Accepted, not trusted: the type is detected from the bytes and name.' }),
});

type InputFile = z.infer<typeof inputFile>;

const input = {
  prompt: z.string().meta({ description: 'The user message (1 byte to 1 MB of UTF-8 text).', minLength: 1 }),
  conversationId: z
    .string()
    .optional()
    .meta({ description: 'Continue this conversation (omitted: a new one).', format: 'uuid' }),
  files: z
    .array(inputFile)
    .optional()
    .meta({ description: 'Files for the agent to read, sent inline.', maxItems: MAX_FILES }),
  personaKey: z.string().optional().meta({ description: 'A persona `key` from list_personas.' }),
};

const looseObject = z.looseObject({});
const output = {
  text: z.string(),
  conversationId: z.string(),
  messageId: z.string(),
  deliverables: z.array(
    z.looseObject({ filename: z.string(), filepath: z.string(), size: z.number(), isPrimary: z.boolean() }),
  ),
  executionSteps: z.array(z.looseObject({ actionType: z.string(), status: z.string(), files: z.array(looseObject) })),
  interaction: z.looseObject({ interactionType: z.string(), content: z.string() }).optional(),
  uiResources: z.array(z.looseObject({ type: z.string(), origin: z.string(), altText: z.string() })),
  unfinished: z.literal(true).optional(),
  cancelled: z.literal(true).optional(),
};

type ExecuteChatArgs = { prompt: string; conversationId?: string; files?: InputFile[]; personaKey?: string };

export interface ExecuteChatOptions {
  heartbeatMs: number;
  /** The instance is shutting down: stop following (the turn goes on). */
  shutdown: AbortSignal;
  logger: Logger;
}

/** `execute_chat`: starts a turn and blocks until it ends, answering document 3's "MCP execute_chat result". */
export class ExecuteChatTool implements McpTool {
  readonly name = 'execute_chat';

  constructor(
    private readonly starter: TurnStarter,
    private readonly runStream: RunStream,
    private readonly files: FilesService,
    private readonly reads: ConversationReads,
    private readonly options: ExecuteChatOptions,
  ) {}

  register(server: McpServer, owner: ConversationOwner): void {
    server.registerTool(
      this.name,
      {
        title: 'Run the agent',
        description:
          'Runs one agent turn and waits for its end: the answer, its files (deliverables), steps, UI resources, or the question it asks (continue with conversationId).',
        inputSchema: input,
        outputSchema: output,
      },
      (args, extra) => settle(this.options.logger, this.name, () => this.call(owner, args, extra)),
    );
  }

  private async call(owner: ConversationOwner, args: ExecuteChatArgs, extra: ToolExtra): Promise<CallToolResult> {
    const problem = argumentProblem(args);
    if (problem) return toolError(McpToolErrorCode.InvalidParams, problem);
    const inline = (args.files ?? []).map((file) => ({
      filename: file.filename,
      bytes: Buffer.from(file.data, 'base64'),
    }));
    // A refused start (not the caller's conversation, a turn running, ...) deletes the stored files again.
    const started = await withInlineFiles(this.files, owner, inline, (stored) => {
      const request: ChatTurnRequest = {
        ...(args.conversationId ? { conversationId: args.conversationId.toLowerCase() } : {}),
        text: args.prompt,
        files: stored.map(({ fileId }) => ({ fileId })),
        options: { ...CHAT_TURN_DEFAULTS, ...(args.personaKey !== undefined ? { personaKey: args.personaKey } : {}) },
      };
      return this.starter.start(owner, request);
    });
    return this.follow(owner, started, extra);
  }

  private async follow(owner: ConversationOwner, turn: StartedTurn, extra: ToolExtra): Promise<CallToolResult> {
    const stop = AbortSignal.any([extra.signal, this.options.shutdown]);
    const collector = new TurnCollector(turn.conversationId, turn.runId);
    const stopProgress = this.reportProgress(extra, collector);
    try {
      const events = followRun(this.runStream, turn.runId, {
        after: STREAM_START,
        quietMs: this.options.heartbeatMs,
        signal: stop,
      });
      for await (const event of events) if (event.kind === 'chunk') collector.add(event.chunk);
    } finally {
      stopProgress();
    }
    const { conversationId } = turn;
    if (stop.aborted) {
      return toolError(McpToolErrorCode.InternalError, 'the service stopped waiting for the turn; it goes on', {
        conversationId,
      });
    }
    const outcome = collector.outcome();
    if (outcome.kind === 'failed') {
      return toolError(McpToolErrorCode.TurnFailed, outcome.message, {
        reason: outcome.code,
        conversationId,
        retryable: !PERMANENT_TURN_FAILURES.has(outcome.code),
      });
    }
    if (outcome.kind === 'lost') {
      return toolError(McpToolErrorCode.InternalError, 'the turn ended without an answer', { conversationId });
    }
    const { result } = outcome;
    if (result.unfinished && (await this.reads.cancelRequested(owner, turn.runId))) result.cancelled = true;
    return toolResult({ ...result });
  }

  /** MCP progress each heartbeat when asked (`progressToken`): clients with `resetTimeoutOnProgress` keep waiting. */
  private reportProgress(extra: ToolExtra, collector: TurnCollector): () => void {
    const progressToken = extra._meta?.progressToken;
    if (progressToken === undefined) return () => undefined;
    let progress = 0;
    // Nothing sets the beat's lastWrite: a notification goes out every interval.
    const heartbeats = heartbeatsEvery(this.options.heartbeatMs);
    const beat = heartbeats.add(() => {
      progress += 1;
      const message = collector.currentStep ?? 'working';
      extra
        .sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message } })
        .catch(() => undefined);
      return true;
    });
    return () => heartbeats.delete(beat);
  }
}

/** What the input schema leaves to the tool (so that it is answered as INVALID_PARAMS in our shape). */
function argumentProblem(args: ExecuteChatArgs): string | null {
  if (args.prompt.trim().length === 0) return 'prompt must not be empty';
  if (Buffer.byteLength(args.prompt, 'utf8') > MAX_PROMPT_BYTES) return 'prompt must be at most 1 MB of UTF-8 text';
  if (!isStorableText(args.prompt)) return 'prompt must not contain NUL or unpaired surrogate characters';
  if (args.conversationId !== undefined && !isUuid(args.conversationId)) return 'conversationId must be a UUID';
  const files = args.files ?? [];
  if (files.length > MAX_FILES) return `files must hold at most ${MAX_FILES} items`;
  if (files.some((file) => !isBase64(file.data))) return 'files[].data must be base64';
  return null;
}

/** RFC 4648 base64 with its padding: whole groups of four, `=` only at the end. */
function isBase64(text: string): boolean {
  return text.length % 4 === 0 && BASE64_ALPHABET.test(text);
}
