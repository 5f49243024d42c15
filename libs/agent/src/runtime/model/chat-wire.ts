// The slice of the OpenAI-compatible chat-completions API the agent speaks to the model gateway.

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A part of a user message: its text, or an image (a `data:` URL) the model looks at. */
export type UserContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | UserContentPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ModelRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  /** A Marketplace agent's model configuration; absent: the provider's defaults. */
  temperature?: number;
  maxTokens?: number;
  /** `none`: the model must answer in text (the last step of a turn). */
  toolChoice?: 'auto' | 'none';
  /** Sent as `x-federation-private: true`. */
  privateMode: boolean;
  /** The conversation, sent as `x-client-session-id`: the gateway log's `clientSessionId` ties its rows to the turn. */
  sessionId?: string;
  /** Sent as `x-client-tenant-id`: files the call in the tenant's log when the runtime's own key has no tenant. */
  tenantId?: string | null;
}

export interface ModelReply {
  text: string;
  toolCalls: ToolCall[];
  finishReason: string | null;
}
