import { anthropicUsageOf, usageFromOpenAi } from '../usage/token-usage';
import {
  type AnthropicContentBlock,
  type AnthropicMessage,
  type AnthropicStopReason,
  type ChatCompletion,
} from '../wire';
import { stopReasonFromChat } from './stop-reasons';
import { type ChatCompletionMessage } from './wire-extensions';

/** From its first choice. */
export function chatCompletionToAnthropic(completion: ChatCompletion, model: string): AnthropicMessage {
  const choice = completion.choices?.[0];
  const reply = choice?.message as ChatCompletionMessage | undefined;
  const content: AnthropicContentBlock[] = [];
  if (typeof reply?.reasoning_content === 'string' && reply.reasoning_content !== '') {
    // Unsigned upstream: an empty signature tells clients not to send it back for verification.
    content.push({ type: 'thinking', thinking: reply.reasoning_content, signature: '' });
  }
  const text = reply?.content || reply?.refusal || '';
  if (text !== '') content.push({ type: 'text', text });
  for (const call of reply?.tool_calls ?? []) {
    content.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: toolInputOf(call.function.arguments),
    });
  }

  return {
    id: messageIdOf(completion.id),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReasonOf(choice?.finish_reason, (reply?.tool_calls?.length ?? 0) > 0),
    stop_sequence: null,
    usage: anthropicUsageOf(usageFromOpenAi(completion.usage)),
  };
}

export function messageIdOf(completionId: string): string {
  return `msg_${completionId.replace(/^chatcmpl-/, '')}`;
}

/** Some OpenAI-compatible servers end a tool-calling turn with `stop`; agent clients loop on `tool_use`. */
export function stopReasonOf(finishReason: string | null | undefined, calledTools: boolean): AnthropicStopReason {
  const stopReason = stopReasonFromChat(finishReason);
  return calledTools && stopReason === 'end_turn' ? 'tool_use' : stopReason;
}

/** Arguments that are not a JSON object stay visible instead of silently becoming `{}`. */
export function toolInputOf(args: string | null | undefined): Record<string, unknown> {
  if (args == null || args.trim() === '') return {};
  try {
    const input: unknown = JSON.parse(args);
    if (typeof input === 'object' && input !== null && !Array.isArray(input)) return input as Record<string, unknown>;
  } catch {
    // Falls through to the visible wrapper.
  }
  return { _unparsed_arguments: args };
}
