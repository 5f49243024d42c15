import { openAiUsageOf, usageFromAnthropic } from '../usage/token-usage';
import { type AnthropicMessage, type ChatCompletion, type ChatToolCall } from '../wire';
import { finishReasonFromAnthropic } from './stop-reasons';
import { type ChatCompletionMessage } from './wire-extensions';

export interface AnthropicMessageToChatOptions {
  /** Unix seconds; defaults to now. */
  created?: number;
}

/** `model` is the client's name for it. */
export function anthropicMessageToChat(
  message: AnthropicMessage,
  model: string,
  options: AnthropicMessageToChatOptions = {},
): ChatCompletion {
  const texts: string[] = [];
  const thinking: string[] = [];
  const toolCalls: ChatToolCall[] = [];
  for (const block of message.content ?? []) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'thinking') thinking.push(block.thinking);
    else if (block.type === 'tool_use') {
      toolCalls.push({
        id: block.id,
        type: 'function',
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    }
    // redacted_thinking and server-side blocks have nothing a chat client can read.
  }

  const reply: ChatCompletionMessage = {
    role: 'assistant',
    // Anthropic splits one reply's text around citations.
    content: texts.length > 0 ? texts.join('') : null,
  };
  if (toolCalls.length > 0) reply.tool_calls = toolCalls;
  if (thinking.length > 0) reply.reasoning_content = thinking.join('');

  return {
    id: chatCompletionIdOf(message.id),
    object: 'chat.completion',
    created: options.created ?? Math.floor(Date.now() / 1000),
    model,
    choices: [
      { index: 0, message: reply, finish_reason: finishReasonFromAnthropic(message.stop_reason), logprobs: null },
    ],
    usage: openAiUsageOf(usageFromAnthropic(message.usage)),
  };
}

export function chatCompletionIdOf(messageId: string): string {
  return `chatcmpl-${messageId.replace(/^msg_/, '')}`;
}
