// What the chat endpoints answer besides the stream's chunks (those are in ../sse/chat-chunk).

/** Response headers of a chat stream (POST and reconnect): the conversation and the assistant message. */
export const CHAT_STREAM_HEADERS = {
  conversationId: 'X-Conversation-Id',
  messageId: 'X-Message-Id',
} as const;

/** `POST /v1/chat/completions/:conversationId/cancel`: 200 even when nothing was in progress. */
export interface ChatCancelResponse {
  conversationId: string;
  cancelled: true;
}
