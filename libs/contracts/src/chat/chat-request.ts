// Document 2 ("Chat request", "Message object", "Limits"). Clients and servers ignore unknown fields.

/** Document 2 ("Limits"), and ours where it is silent. */
export const CHAT_LIMITS = {
  processedTextBytes: 1024 * 1024,
  inputFileParts: 20,
  skillIds: 10,
  /** Ours: history is not sent, only the last user message's worth of work. */
  messages: 1000,
  partsPerMessage: 1000,
  /** Ours: `personaKey`, `playbookId` and each skill id. */
  catalogIdCharacters: 200,
  filepathCharacters: 1024,
} as const;

export const CHAT_ROLES = ['user', 'assistant', 'system'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

export const AGENT_LEVELS = ['default', 'high_performance'] as const;
export type AgentLevel = (typeof AGENT_LEVELS)[number];

export const REPORT_MODES = ['with', 'without'] as const;
export type ReportMode = (typeof REPORT_MODES)[number];

export const OUTPUT_FORMATS = ['plain', 'markdown'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface TextContentPart {
  type: 'text';
  text: string;
}

/** Exactly one of `fileId` (an uploaded file) and `filepath` (a library file). */
export type InputFileContentPart = { type: 'input_file'; fileId: string } | { type: 'input_file'; filepath: string };

export type ChatContentPart = TextContentPart | InputFileContentPart;

export interface ChatMessage {
  /** Only `user` starts the agent turn; the others are accepted and ignored. */
  role: ChatRole;
  content: string | ChatContentPart[];
}

export interface ChatCompletionRequest {
  model: string;
  /** Only the last user message is processed. */
  messages: ChatMessage[];
  stream: true;
  /** Omitted: a new conversation. */
  conversationId?: string;
  agentLevel?: AgentLevel;
  agentMode?: boolean;
  privateMode?: boolean;
  reportMode?: ReportMode;
  personaKey?: string;
  playbookId?: string;
  skillIds?: string[];
  outputFormat?: OutputFormat;
  /** Marketplace edition only (also `X-Agent-Id`); the SaaS-only fields above are ignored there. */
  agentId?: string;
}

const AGENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** 1-64 characters of A-Z, a-z, 0-9, `_` and `-`. */
export function isAgentId(value: unknown): value is string {
  return typeof value === 'string' && AGENT_ID.test(value);
}

/** Omitted cancels every turn. */
export interface ChatCancelRequest {
  messageId?: string;
}
