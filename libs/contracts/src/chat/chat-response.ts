/** Headers of a chat stream, on POST and on reconnect. */
export const CHAT_STREAM_HEADERS = {
  conversationId: 'X-Conversation-Id',
  messageId: 'X-Message-Id',
} as const;

/** 200 even when nothing was in progress. */
export interface ChatCancelResponse {
  conversationId: string;
  cancelled: true;
}
