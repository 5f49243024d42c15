import { type AnthropicStreamEvent, type ChatCompletionChunk, type OpenAiErrorBody } from '../wire';

export const CHAT_STREAM_DONE = 'data: [DONE]\n\n';

export function encodeChatChunk(chunk: ChatCompletionChunk | OpenAiErrorBody): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

export function encodeAnthropicEvent(event: AnthropicStreamEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
