import { ApiError, isStorableText, isUuid } from '@fed/contracts';
import { type TurnOptions } from '../storage';

/** Limits of document 2 ("Limits"). */
export const CHAT_LIMITS = {
  processedTextBytes: 1024 * 1024,
  inputFileParts: 20,
  skillIds: 10,
  /** Ours: a request carries only its last user message's worth of work; history is not sent. */
  messages: 1000,
  /** Ours: text parts of one message. */
  partsPerMessage: 1000,
} as const;

export interface InputFileRef {
  fileId?: string;
  filepath?: string;
}

/** A validated chat request: what the turn needs. */
export interface ChatRequest {
  conversationId?: string;
  /** The last user message's text parts, joined by blank lines. */
  text: string;
  /** input_file parts of the last user message. */
  files: InputFileRef[];
  options: TurnOptions;
}

const invalid = (message: string) => new ApiError('invalid_request', message);
const invalidParameter = (message: string) => new ApiError('invalid_parameter', message);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalEnum<T extends string>(body: Record<string, unknown>, name: string, allowed: readonly T[]) {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalidParameter(`${name} must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

function optionalBoolean(body: Record<string, unknown>, name: string): boolean | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw invalidParameter(`${name} must be a boolean`);
  return value;
}

function optionalId(body: Record<string, unknown>, name: string, maxLength: number): string | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength || !isStorableText(value)) {
    throw invalidParameter(`${name} must be a non-empty string of at most ${maxLength} characters`);
  }
  return value;
}

interface ParsedContent {
  texts: string[];
  files: InputFileRef[];
}

function parseContent(content: unknown, where: string): ParsedContent {
  if (typeof content === 'string') return { texts: [content], files: [] };
  if (!Array.isArray(content)) throw invalid(`${where}.content must be a string or an array of content parts`);
  if (content.length > CHAT_LIMITS.partsPerMessage) {
    throw invalid(`${where}.content has more than ${CHAT_LIMITS.partsPerMessage} parts`);
  }
  const parsed: ParsedContent = { texts: [], files: [] };
  content.forEach((part: unknown, index) => {
    const at = `${where}.content[${index}]`;
    if (!isObject(part)) throw invalid(`${at} must be an object`);
    if (part.type === 'text') {
      if (typeof part.text !== 'string') throw invalid(`${at}.text must be a string`);
      parsed.texts.push(part.text);
    } else if (part.type === 'input_file') {
      const hasId = part.fileId !== undefined;
      const hasPath = part.filepath !== undefined;
      if (hasId === hasPath) throw invalid(`${at} must give exactly one of fileId and filepath`);
      if (hasId && !isUuid(part.fileId)) throw invalid(`${at}.fileId must be a UUID`);
      if (hasPath) {
        const path = part.filepath;
        if (typeof path !== 'string' || path.length === 0 || path.length > 1024 || !isStorableText(path)) {
          throw invalid(`${at}.filepath must be a non-empty string of at most 1024 characters`);
        }
      }
      parsed.files.push(hasId ? { fileId: part.fileId as string } : { filepath: part.filepath as string });
    } else {
      throw invalid(`${at}.type must be text or input_file`);
    }
  });
  return parsed;
}

/**
 * Checks a `POST /v1/chat/completions` body against document 2 ("Chat request", "Message object",
 * "Limits"). Every refusal is a 400 whose message names the field. Unknown fields are ignored (clients
 * and servers ignore what they do not know).
 */
export function parseChatRequest(body: unknown, modelName: string): ChatRequest {
  if (!isObject(body)) throw invalid('the body must be a JSON object');
  if (typeof body.model !== 'string') throw invalid('model is required and must be a string');
  if (body.model !== modelName) throw invalidParameter(`model must be "${modelName}"`);
  if (body.stream === undefined) throw invalid('stream is required and must be true');
  if (body.stream !== true) throw invalid('stream must be true: only streaming is supported');
  let conversationId: string | undefined;
  if (body.conversationId !== undefined) {
    if (!isUuid(body.conversationId)) {
      throw new ApiError('invalid_conversation_id', 'conversationId must be a UUID string');
    }
    conversationId = body.conversationId.toLowerCase();
  }

  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) throw invalid('messages must be a non-empty array');
  if (messages.length > CHAT_LIMITS.messages) throw invalid(`messages has more than ${CHAT_LIMITS.messages} entries`);
  let last: ParsedContent | undefined;
  let inputFiles = 0;
  messages.forEach((message: unknown, index) => {
    const where = `messages[${index}]`;
    if (!isObject(message)) throw invalid(`${where} must be an object`);
    if (typeof message.role !== 'string') throw invalid(`${where}.role is required and must be a string`);
    if (!['user', 'assistant', 'system'].includes(message.role)) {
      throw invalid(`${where}.role must be user, assistant or system`);
    }
    if (message.content === undefined) throw invalid(`${where}.content is required`);
    const content = parseContent(message.content, where);
    inputFiles += content.files.length;
    if (message.role === 'user') last = content;
  });
  if (inputFiles > CHAT_LIMITS.inputFileParts) {
    throw invalid(`at most ${CHAT_LIMITS.inputFileParts} input_file parts are allowed per request`);
  }
  if (!last) throw invalid('messages must contain a user message');
  const processed: ParsedContent = last;
  const text = processed.texts.join('\n\n');
  if (Buffer.byteLength(text, 'utf8') > CHAT_LIMITS.processedTextBytes) {
    throw invalid('the message text is larger than 1 MB (UTF-8)');
  }
  if (!isStorableText(text)) throw invalid('the message text contains NUL or unpaired surrogate characters');
  if (text.trim().length === 0 && processed.files.length === 0) throw invalid('the user message is empty');

  let skillIds: string[] | undefined;
  if (body.skillIds !== undefined) {
    if (!Array.isArray(body.skillIds)) throw invalidParameter('skillIds must be an array of strings');
    if (body.skillIds.length > CHAT_LIMITS.skillIds) {
      throw invalidParameter(`skillIds may hold at most ${CHAT_LIMITS.skillIds} entries`);
    }
    for (const id of body.skillIds as unknown[]) {
      if (typeof id !== 'string' || id.length === 0 || id.length > 200 || !isStorableText(id)) {
        throw invalidParameter('skillIds must be an array of non-empty strings');
      }
    }
    skillIds = body.skillIds as string[];
  }

  const options: TurnOptions = {
    agentLevel: optionalEnum(body, 'agentLevel', ['default', 'high_performance'] as const) ?? 'default',
    agentMode: optionalBoolean(body, 'agentMode') ?? true,
    privateMode: optionalBoolean(body, 'privateMode') ?? false,
    reportMode: optionalEnum(body, 'reportMode', ['with', 'without'] as const) ?? 'with',
    outputFormat: optionalEnum(body, 'outputFormat', ['plain', 'markdown'] as const) ?? 'plain',
  };
  const personaKey = optionalId(body, 'personaKey', 200);
  const playbookId = optionalId(body, 'playbookId', 200);
  if (personaKey !== undefined) options.personaKey = personaKey;
  if (playbookId !== undefined) options.playbookId = playbookId;
  if (skillIds !== undefined) options.skillIds = skillIds;
  return { ...(conversationId ? { conversationId } : {}), text, files: processed.files, options };
}
