import {
  type AnthropicContentBlock,
  type AnthropicImageBlock,
  type AnthropicMessageParam,
  type AnthropicMessagesRequest,
  type AnthropicTextBlock,
  type AnthropicTool,
  type AnthropicToolChoice,
  type AnthropicToolResultBlock,
  type ChatCompletionRequest,
  type ChatContentPart,
  type ChatImagePart,
  type ChatMessage,
  type ChatTextPart,
  type ChatTool,
  type ChatToolCall,
  type ChatToolChoice,
} from '../wire';
import { TranslationError } from './translation-error';

export interface MessagesRequestToChatOptions {
  /** Newer OpenAI models refuse `max_tokens`; older OpenAI-compatible servers only know it. */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
}

/**
 * Dropped: `top_k`, `thinking` (no counterpart), `cache_control` (the upstream's business), thinking
 * blocks of earlier turns (only the signing provider reads them), `container` and `service_tier`.
 */
export function messagesRequestToChat(
  request: AnthropicMessagesRequest,
  upstreamModel: string,
  options: MessagesRequestToChatOptions,
): ChatCompletionRequest {
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    throw new TranslationError('messages must not be empty', 'messages');
  }
  if (Array.isArray(request.mcp_servers) && request.mcp_servers.length > 0) {
    throw new TranslationError('mcp_servers are not supported for this model', 'mcp_servers');
  }

  const messages: ChatMessage[] = [];
  const system = systemText(request.system);
  if (system !== '') messages.push({ role: 'system', content: system });
  request.messages.forEach((message, i) => messages.push(...chatMessages(message, `messages[${i}]`)));

  const translated: ChatCompletionRequest = { model: upstreamModel, messages };
  translated[options.maxTokensField] = request.max_tokens;
  if (request.stream === true) {
    translated.stream = true;
    // The gateway meters every call.
    translated.stream_options = { include_usage: true };
  }
  if (typeof request.temperature === 'number') translated.temperature = request.temperature;
  if (typeof request.top_p === 'number') translated.top_p = request.top_p;
  if (request.stop_sequences && request.stop_sequences.length > 0) translated.stop = request.stop_sequences;
  if (typeof request.metadata?.user_id === 'string') translated.user = request.metadata.user_id;
  if (request.tools && request.tools.length > 0) translated.tools = request.tools.map(chatTool);
  if (request.tool_choice) {
    translated.tool_choice = chatToolChoice(request.tool_choice);
    if ('disable_parallel_tool_use' in request.tool_choice && request.tool_choice.disable_parallel_tool_use === true) {
      translated.parallel_tool_calls = false;
    }
  }
  return translated;
}

// Separate blocks read as separate paragraphs.
function systemText(system: AnthropicMessagesRequest['system']): string {
  if (system == null) return '';
  if (typeof system === 'string') return system;
  return system
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .filter((text) => text !== '')
    .join('\n\n');
}

function chatMessages(message: AnthropicMessageParam, param: string): ChatMessage[] {
  if (message.role === 'user') return userMessages(message.content, param);
  if (message.role === 'assistant') return assistantMessages(message.content, param);
  throw new TranslationError(`messages with role '${String(message.role)}' are not supported`, `${param}.role`);
}

/** `tool` messages must directly follow the assistant's tool calls. */
function userMessages(content: AnthropicMessageParam['content'], param: string): ChatMessage[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const toolMessages: ChatMessage[] = [];
  // Tool messages cannot carry images: they go to the user message after them.
  const parts: ChatContentPart[] = [];
  const ownParts: ChatContentPart[] = [];
  content.forEach((block, j) => {
    const blockParam = `${param}.content[${j}]`;
    if (block.type === 'tool_result') {
      const { message, images } = toolMessage(block, blockParam);
      toolMessages.push(message);
      parts.push(...images);
    } else {
      ownParts.push(mediaPart(block, blockParam));
    }
  });
  parts.push(...ownParts);
  if (parts.length === 0) return toolMessages;
  const onlyText = parts.length === 1 && parts[0]!.type === 'text';
  return [...toolMessages, { role: 'user', content: onlyText ? (parts[0] as ChatTextPart).text : parts }];
}

function toolMessage(
  block: AnthropicToolResultBlock,
  param: string,
): { message: ChatMessage; images: ChatImagePart[] } {
  const texts: string[] = [];
  const images: ChatImagePart[] = [];
  if (typeof block.content === 'string') texts.push(block.content);
  else {
    (block.content ?? []).forEach((inner, k) => {
      const part = mediaPart(inner, `${param}.content[${k}]`);
      if (part.type === 'text') texts.push(part.text);
      else images.push(part);
    });
  }
  const text = texts.join('\n\n');
  return {
    message: {
      role: 'tool',
      tool_call_id: block.tool_use_id,
      content: block.is_error === true ? `Error: ${text}` : text,
    },
    images,
  };
}

function mediaPart(block: AnthropicContentBlock, param: string): ChatTextPart | ChatImagePart {
  if (block.type === 'text') return { type: 'text', text: block.text };
  if (block.type === 'image') return imagePart(block, param);
  throw new TranslationError(`content blocks of type '${block.type}' are not supported for this model`, param);
}

function imagePart(block: AnthropicImageBlock, param: string): ChatImagePart {
  const source = block.source;
  if (source?.type === 'base64') {
    return { type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } };
  }
  if (source?.type === 'url') return { type: 'image_url', image_url: { url: source.url } };
  throw new TranslationError('images must have a base64 or url source', `${param}.source`);
}

function assistantMessages(content: AnthropicMessageParam['content'], param: string): ChatMessage[] {
  if (typeof content === 'string') return [{ role: 'assistant', content }];
  const texts: string[] = [];
  const toolCalls: ChatToolCall[] = [];
  content.forEach((block, j) => {
    switch (block.type) {
      case 'text':
        texts.push((block as AnthropicTextBlock).text);
        return;
      case 'tool_use':
        toolCalls.push({
          id: block.id,
          type: 'function',
          function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
        });
        return;
      case 'thinking':
      case 'redacted_thinking':
        return;
      default:
        throw new TranslationError(
          `assistant content blocks of type '${String(block.type)}' are not supported for this model`,
          `${param}.content[${j}]`,
        );
    }
  });
  // Anthropic splits one reply's text around citations.
  const text = texts.join('');
  // A turn that only held thinking says nothing the upstream can read.
  if (toolCalls.length === 0) return text === '' ? [] : [{ role: 'assistant', content: text }];
  return [{ role: 'assistant', content: text === '' ? null : text, tool_calls: toolCalls }];
}

function chatTool(tool: AnthropicTool, i: number): ChatTool {
  // Server tools (web search, ...) run at Anthropic; `custom` is a plain client tool.
  if (tool.type !== undefined && tool.type !== 'custom') {
    throw new TranslationError(`server tool '${tool.type}' is not supported for this model`, `tools[${i}]`);
  }
  const fn: ChatTool['function'] = { name: tool.name, parameters: tool.input_schema };
  if (tool.description !== undefined) fn.description = tool.description;
  return { type: 'function', function: fn };
}

function chatToolChoice(choice: AnthropicToolChoice): ChatToolChoice {
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'function', function: { name: choice.name } };
    default:
      throw new TranslationError('tool_choice is not supported for this model', 'tool_choice');
  }
}
