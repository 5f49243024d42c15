import {
  type AnthropicContentBlock,
  type AnthropicImageBlock,
  type AnthropicMessageParam,
  type AnthropicMessagesRequest,
  type AnthropicTextBlock,
  type AnthropicTool,
  type AnthropicToolChoice,
  type AnthropicToolResultBlock,
  type AnthropicToolUseBlock,
  type ChatCompletionRequest,
  type ChatContentPart,
  type ChatMessage,
  type ChatTool,
  type ChatToolCall,
} from '../wire';
import { TranslationError } from './translation-error';

export interface ChatRequestToAnthropicOptions {
  /** Anthropic requires `max_tokens`; chat-completions clients often leave it out. */
  defaultMaxTokens: number;
}

/**
 * Dropped, as leaving them out does not change the answer's meaning: `seed`, `logprobs: false`, the
 * penalties, `response_format` `text`, `stream_options`, `metadata`, `store`, `prediction`,
 * `service_tier`, `reasoning_effort` (thinking needs a budget the client did not choose), `strict` on
 * tools, `name` on messages, and `reasoning_content` (Anthropic only accepts thinking it signed).
 */
export function chatRequestToAnthropic(
  request: ChatCompletionRequest,
  upstreamModel: string,
  options: ChatRequestToAnthropicOptions,
): AnthropicMessagesRequest {
  refuseUntranslatableFields(request);
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    throw new TranslationError('messages must not be empty', 'messages');
  }

  const system: AnthropicTextBlock[] = [];
  const turns: AnthropicMessageParam[] = [];
  request.messages.forEach((message, i) => {
    const param = `messages[${i}]`;
    if (typeof message !== 'object' || message === null) throw new TranslationError('messages must be objects', param);
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...systemBlocks(message, param));
        return;
      case 'user':
        appendTurn(turns, 'user', userContent(message.content, param));
        return;
      case 'assistant': {
        const content = assistantContent(message, param);
        // An empty assistant turn is refused upstream and carries no meaning.
        if (content.length > 0) appendTurn(turns, 'assistant', content);
        return;
      }
      case 'tool':
        appendTurn(turns, 'user', [toolResult(message, param)]);
        return;
      default:
        throw new TranslationError(`messages with role '${String(message.role)}' are not supported`, `${param}.role`);
    }
  });
  if (turns.length === 0) {
    throw new TranslationError('messages must contain a user or assistant message', 'messages');
  }

  const translated: AnthropicMessagesRequest = {
    model: upstreamModel,
    messages: turns,
    max_tokens: request.max_completion_tokens ?? request.max_tokens ?? options.defaultMaxTokens,
  };
  if (system.length > 0) translated.system = system;
  if (request.stream === true) translated.stream = true;
  if (typeof request.temperature === 'number') translated.temperature = Math.min(request.temperature, 1);
  if (typeof request.top_p === 'number') translated.top_p = request.top_p;
  const stopSequences = typeof request.stop === 'string' ? [request.stop] : (request.stop ?? []);
  if (stopSequences.length > 0) translated.stop_sequences = stopSequences;
  if (typeof request.user === 'string' && request.user !== '') translated.metadata = { user_id: request.user };
  if (request.tools && request.tools.length > 0) translated.tools = request.tools.map(anthropicTool);
  const toolChoice = anthropicToolChoice(request);
  if (toolChoice) translated.tool_choice = toolChoice;
  return translated;
}

function refuseUntranslatableFields(request: ChatCompletionRequest): void {
  if (typeof request.n === 'number' && request.n > 1) {
    throw new TranslationError('n > 1 is not supported for this model', 'n');
  }
  if (request.logprobs === true) {
    throw new TranslationError('logprobs are not supported for this model', 'logprobs');
  }
  const responseFormat = request.response_format as { type?: unknown } | null | undefined;
  if (responseFormat && responseFormat.type !== 'text') {
    throw new TranslationError(
      `response_format '${String(responseFormat.type)}' is not supported for this model`,
      'response_format',
    );
  }
  const modalities = request.modalities;
  if (request.audio || (Array.isArray(modalities) && modalities.includes('audio'))) {
    throw new TranslationError('audio output is not supported for this model', 'audio');
  }
  if (
    typeof request.logit_bias === 'object' &&
    request.logit_bias !== null &&
    Object.keys(request.logit_bias).length > 0
  ) {
    throw new TranslationError('logit_bias is not supported for this model', 'logit_bias');
  }
  if (request.web_search_options) {
    throw new TranslationError('web_search_options is not supported for this model', 'web_search_options');
  }
  if (request.functions || request.function_call) {
    throw new TranslationError('functions and function_call are not supported; use tools', 'functions');
  }
}

function systemBlocks(message: ChatMessage, param: string): AnthropicTextBlock[] {
  const content = message.content;
  if (content == null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.flatMap((part, j): AnthropicTextBlock[] => {
    if (part.type !== 'text') {
      throw new TranslationError(`${message.role} messages may only contain text`, `${param}.content[${j}]`);
    }
    return textBlocks(part);
  });
}

function userContent(content: ChatMessage['content'], param: string): string | AnthropicContentBlock[] {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content.flatMap((part, j) => mediaBlocks(part, `${param}.content[${j}]`));
}

/** The only parts a user message or tool result can carry across. */
function mediaBlocks(part: ChatContentPart, param: string): Array<AnthropicTextBlock | AnthropicImageBlock> {
  if (part.type === 'text') return textBlocks(part);
  if (part.type === 'image_url') return [imageBlock(part, param)];
  if (part.type === 'input_audio') throw new TranslationError('audio input is not supported for this model', param);
  throw new TranslationError(`content parts of type '${part.type}' are not supported for this model`, param);
}

// Anthropic refuses empty text blocks.
function textBlocks(part: ChatContentPart): AnthropicTextBlock[] {
  const text = (part as { text?: unknown }).text;
  if (typeof text !== 'string' || text === '') return [];
  return [{ type: 'text', text }];
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

function imageBlock(part: ChatContentPart, param: string): AnthropicImageBlock {
  const url = (part as { image_url?: { url?: unknown } }).image_url?.url;
  if (typeof url !== 'string') throw new TranslationError('image_url.url is missing', param);
  const dataUrl = DATA_URL.exec(url);
  if (dataUrl) return { type: 'image', source: { type: 'base64', media_type: dataUrl[1]!, data: dataUrl[2]! } };
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw new TranslationError('image_url.url must be a base64 data: URL or an http(s) URL', param);
}

function assistantContent(message: ChatMessage, param: string): AnthropicContentBlock[] {
  const blocks: AnthropicContentBlock[] = [];
  const content = message.content;
  if (typeof content === 'string') {
    if (content !== '') blocks.push({ type: 'text', text: content });
  } else if (Array.isArray(content)) {
    content.forEach((part, j) => {
      if (part.type === 'text') blocks.push(...textBlocks(part));
      else if (part.type === 'refusal') {
        const refusal = (part as { refusal?: unknown }).refusal;
        if (typeof refusal === 'string' && refusal !== '') blocks.push({ type: 'text', text: refusal });
      } else {
        throw new TranslationError(
          `assistant content parts of type '${part.type}' are not supported`,
          `${param}.content[${j}]`,
        );
      }
    });
  }
  (message.tool_calls ?? []).forEach((call, j) => blocks.push(toolUse(call, `${param}.tool_calls[${j}]`)));
  return blocks;
}

function toolUse(call: ChatToolCall, param: string): AnthropicToolUseBlock {
  return { type: 'tool_use', id: call.id, name: call.function.name, input: toolInput(call.function.arguments, param) };
}

function toolInput(args: string | undefined, param: string): Record<string, unknown> {
  if (args == null || args.trim() === '') return {};
  let input: unknown;
  try {
    input = JSON.parse(args);
  } catch {
    throw new TranslationError('tool call arguments must be a JSON object', `${param}.function.arguments`);
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new TranslationError('tool call arguments must be a JSON object', `${param}.function.arguments`);
  }
  return input as Record<string, unknown>;
}

function toolResult(message: ChatMessage, param: string): AnthropicToolResultBlock {
  if (typeof message.tool_call_id !== 'string' || message.tool_call_id === '') {
    throw new TranslationError('tool messages need a tool_call_id', `${param}.tool_call_id`);
  }
  const block: AnthropicToolResultBlock = { type: 'tool_result', tool_use_id: message.tool_call_id };
  const content = message.content;
  if (typeof content === 'string') block.content = content;
  else if (Array.isArray(content))
    block.content = content.flatMap((part, j) => mediaBlocks(part, `${param}.content[${j}]`));
  return block;
}

/** Anthropic wants strictly alternating roles. */
function appendTurn(
  turns: AnthropicMessageParam[],
  role: AnthropicMessageParam['role'],
  content: string | AnthropicContentBlock[],
): void {
  const last = turns.at(-1);
  if (last?.role !== role) {
    turns.push({ role, content });
    return;
  }
  const merged = [...asBlocks(last.content), ...asBlocks(content)];
  // Anthropic wants a user turn's tool results first.
  last.content = [
    ...merged.filter((block) => block.type === 'tool_result'),
    ...merged.filter((block) => block.type !== 'tool_result'),
  ];
}

function asBlocks(content: string | AnthropicContentBlock[]): AnthropicContentBlock[] {
  if (typeof content !== 'string') return content;
  return content === '' ? [] : [{ type: 'text', text: content }];
}

function anthropicTool(tool: ChatTool, i: number): AnthropicTool {
  if (tool.type !== 'function' || !tool.function) {
    throw new TranslationError(`tools of type '${String(tool.type)}' are not supported for this model`, `tools[${i}]`);
  }
  const translated: AnthropicTool = {
    name: tool.function.name,
    input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
  };
  if (tool.function.description !== undefined) translated.description = tool.function.description;
  return translated;
}

function anthropicToolChoice(request: ChatCompletionRequest): AnthropicToolChoice | undefined {
  const choice = request.tool_choice;
  const disableParallel = request.parallel_tool_calls === false;
  const parallel = disableParallel ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined || choice === null) return disableParallel ? { type: 'auto', ...parallel } : undefined;
  if (choice === 'none') return { type: 'none' };
  if (choice === 'auto') return { type: 'auto', ...parallel };
  if (choice === 'required') return { type: 'any', ...parallel };
  if (typeof choice === 'object' && choice.type === 'function' && typeof choice.function?.name === 'string') {
    return { type: 'tool', name: choice.function.name, ...parallel };
  }
  throw new TranslationError('tool_choice is not supported for this model', 'tool_choice');
}
