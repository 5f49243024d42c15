export interface Prompt {
  /** The answer echoes it. */
  lastUserText: string;
  /** The input token count derives from it. */
  characters: number;
  /** Set when tools were given and a user spoke last. */
  toolName: string | undefined;
}

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** About four characters a token. */
export function estimateTokens(characters: number): number {
  return Math.ceil(characters / 4);
}

/** Text parts joined with nothing between them; Anthropic tool results count only when asked. */
export function contentText(content: unknown, withToolResults = false): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) {
    if (!isObject(part)) continue;
    if (typeof part.text === 'string') text += part.text;
    else if (withToolResults && part.type === 'tool_result') text += contentText(part.content);
  }
  return text;
}

function hasToolResult(content: unknown): boolean {
  return Array.isArray(content) && content.some((part) => isObject(part) && part.type === 'tool_result');
}

function messagesOf(body: JsonObject): unknown[] {
  return Array.isArray(body.messages) ? body.messages : [];
}

function firstToolName(tools: unknown, read: (tool: JsonObject) => unknown): string | undefined {
  if (!Array.isArray(tools) || !isObject(tools[0])) return undefined;
  const name = read(tools[0]);
  return typeof name === 'string' ? name : undefined;
}

/** `tool` messages are results, so a `user` message last asks anew. */
export function chatPrompt(body: JsonObject): Prompt {
  let lastUserText = '';
  let characters = 0;
  let lastRole: unknown;
  for (const message of messagesOf(body)) {
    if (!isObject(message)) continue;
    const text = contentText(message.content);
    characters += text.length;
    if (message.role === 'user') lastUserText = text;
    lastRole = message.role;
  }
  const toolName =
    lastRole === 'user'
      ? firstToolName(body.tools, (tool) => (isObject(tool.function) ? tool.function.name : tool.name))
      : undefined;
  return { lastUserText, characters, toolName };
}

/** A user message holding a tool result is no new question; otherwise the default would call tools forever. */
export function anthropicPrompt(body: JsonObject): Prompt {
  let lastUserText = '';
  let characters = contentText(body.system).length;
  let userAsksLast = false;
  for (const message of messagesOf(body)) {
    if (!isObject(message)) continue;
    characters += contentText(message.content, true).length;
    const isUser = message.role === 'user';
    if (isUser) {
      const text = contentText(message.content);
      if (text !== '' || !hasToolResult(message.content)) lastUserText = text;
    }
    userAsksLast = isUser && !hasToolResult(message.content);
  }
  const toolName = userAsksLast ? firstToolName(body.tools, (tool) => tool.name) : undefined;
  return { lastUserText, characters, toolName };
}

/** Tools are ignored. */
export function responsesPrompt(body: JsonObject): Prompt {
  let characters = typeof body.instructions === 'string' ? body.instructions.length : 0;
  if (typeof body.input === 'string') {
    return { lastUserText: body.input, characters: characters + body.input.length, toolName: undefined };
  }
  let lastUserText = '';
  for (const item of Array.isArray(body.input) ? body.input : []) {
    if (!isObject(item)) continue;
    const text = typeof item.output === 'string' ? item.output : contentText(item.content);
    characters += text.length;
    if (item.role === 'user') lastUserText = text;
  }
  return { lastUserText, characters, toolName: undefined };
}

/** Never between the halves of a surrogate pair. */
export function textPieces(text: string, size = 8): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff && end < text.length) end++;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

/** For tool arguments streamed in two deltas. */
export function halves(text: string): [string, string] {
  let middle = Math.floor(text.length / 2);
  const before = text.charCodeAt(middle - 1);
  if (before >= 0xd800 && before <= 0xdbff) middle++;
  return [text.slice(0, middle), text.slice(middle)];
}
