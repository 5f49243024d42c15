import { type Part, Role, type SendMessageRequest } from '@a2a-js/sdk';
import { ContentTypeNotSupportedError, RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import {
  AGENT_LEVELS,
  type AgentLevel,
  CHAT_LIMITS,
  CHAT_TURN_DEFAULTS,
  type ChatTurnOptions,
  REPORT_MODES,
  type ReportMode,
  isStorableText,
  isUuid,
} from '@fed/contracts';
import { type InlineFile } from '../turns';

/** What a `message/send` or `message/stream` asks for, validated; files not stored yet. */
export interface TurnInput {
  /** The task (conversation) continued; absent starts a new one. */
  conversationId?: string;
  text: string;
  files: InlineFile[];
  options: ChatTurnOptions;
}

const invalidParams = (message: string) => new RequestMalformedError({ message });

/**
 * The turn a message asks for (document 3, "A2A message"): its text parts joined by blank lines, its
 * file parts with their bytes, the options of `message.metadata`. Refusals are -32602, except a data
 * part (-32005) and a task id that cannot be one of ours (-32001, as an unknown task).
 */
export function readTurnInput(request: SendMessageRequest): TurnInput {
  const message = request.message;
  if (!message) throw invalidParams('params.message is required');
  if (message.role !== Role.ROLE_USER) throw invalidParams('message.role must be user');
  const conversationId = taskIdOf(message.contextId, message.taskId);
  const texts: string[] = [];
  const files: InlineFile[] = [];
  for (const part of message.parts) {
    const file = partContent(part, texts);
    if (file) files.push({ filename: part.filename || `attachment-${files.length + 1}`, bytes: file });
  }
  if (files.length > CHAT_LIMITS.inputFileParts) {
    throw invalidParams(`at most ${CHAT_LIMITS.inputFileParts} file parts are allowed per message`);
  }
  const text = texts.join('\n\n');
  if (Buffer.byteLength(text, 'utf8') > CHAT_LIMITS.processedTextBytes) {
    throw invalidParams('the message text is larger than 1 MB (UTF-8)');
  }
  if (!isStorableText(text)) throw invalidParams('the message text contains NUL or unpaired surrogate characters');
  if (text.trim().length === 0 && files.length === 0) throw invalidParams('the message has no text and no file');
  return {
    ...(conversationId ? { conversationId } : {}),
    text,
    files,
    options: optionsOf(message.metadata),
  };
}

/** Text is collected; a file's bytes are returned; anything else is refused. */
function partContent(part: Part, texts: string[]): Buffer | undefined {
  switch (part.content?.$case) {
    case 'text':
      texts.push(part.content.value);
      return undefined;
    case 'raw':
      return Buffer.from(part.content.value);
    case 'url':
      throw invalidParams('file parts must carry their bytes: the agent fetches nothing from the network');
    case 'data':
      throw new ContentTypeNotSupportedError({ message: 'data parts are not supported: send text or file parts' });
    default:
      throw invalidParams('every part must be a text or a file part');
  }
}

/** `contextId` and `taskId` both name the conversation; one suffices, two must agree. */
function taskIdOf(contextId: string, taskId: string): string | undefined {
  if (contextId && taskId && contextId.toLowerCase() !== taskId.toLowerCase()) {
    throw invalidParams('message.taskId and message.contextId must be the same task');
  }
  const id = taskId || contextId;
  if (!id) return undefined;
  if (!isUuid(id)) throw new TaskNotFoundError({ message: 'no such task' });
  return id.toLowerCase();
}

function optionsOf(metadata: Record<string, unknown> | undefined): ChatTurnOptions {
  const options: ChatTurnOptions = { ...CHAT_TURN_DEFAULTS };
  if (metadata === undefined) return options;
  const { agentMode, agentLevel, reportMode, personaKey } = metadata;
  if (agentMode !== undefined) {
    if (typeof agentMode !== 'boolean') throw invalidParams('metadata.agentMode must be a boolean');
    options.agentMode = agentMode;
  }
  if (agentLevel !== undefined) {
    if (!AGENT_LEVELS.includes(agentLevel as AgentLevel)) {
      throw invalidParams(`metadata.agentLevel must be one of ${AGENT_LEVELS.join(', ')}`);
    }
    options.agentLevel = agentLevel as AgentLevel;
  }
  if (reportMode !== undefined) {
    if (!REPORT_MODES.includes(reportMode as ReportMode)) {
      throw invalidParams(`metadata.reportMode must be one of ${REPORT_MODES.join(', ')}`);
    }
    options.reportMode = reportMode as ReportMode;
  }
  if (personaKey !== undefined) {
    if (
      typeof personaKey !== 'string' ||
      personaKey.length === 0 ||
      personaKey.length > CHAT_LIMITS.catalogIdCharacters ||
      !isStorableText(personaKey)
    ) {
      throw invalidParams(
        `metadata.personaKey must be a non-empty string of at most ${CHAT_LIMITS.catalogIdCharacters} characters`,
      );
    }
    options.personaKey = personaKey;
  }
  return options;
}

const SEND_METHODS = new Set(['message/send', 'message/stream', 'SendMessage', 'SendStreamingMessage']);

/**
 * Raw params before the SDK parses them (document 3): a bad `historyLength` counts as absent; on send, a top-level
 * `params.historyLength` fills `configuration.historyLength` (the SDK reads only that); a v0.3 `message/send`
 * without `blocking` stays blocking (the SDK's compat layer would not).
 */
export function normaliseParams(method: string, params: unknown): unknown {
  if (!isObject(params)) return params;
  const normalised: Record<string, unknown> = { ...params };
  dropBadHistoryLength(normalised);
  // Not a send, or a configuration that is not an object: the SDK answers what it makes of it.
  if (!SEND_METHODS.has(method) || !(normalised.configuration === undefined || isObject(normalised.configuration))) {
    return normalised;
  }
  const { historyLength, ...rest } = normalised;
  const configuration = isObject(rest.configuration) ? { ...rest.configuration } : undefined;
  if (configuration) dropBadHistoryLength(configuration);
  const lifted =
    historyLength === undefined || configuration?.historyLength !== undefined
      ? configuration
      : { ...configuration, historyLength };
  if (lifted && method === 'message/send' && typeof lifted.blocking !== 'boolean') lifted.blocking = true;
  return lifted ? { ...rest, configuration: lifted } : rest;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function dropBadHistoryLength(holder: Record<string, unknown>): void {
  const value = holder.historyLength;
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) delete holder.historyLength;
}
