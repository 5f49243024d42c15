import { type AgentLevel, type OutputFormat, type ReportMode } from './chat-request';

// The chat endpoint, A2A and MCP each validate their own input and hand this request to the turn starter.

/** Defaults applied (document 2, "Chat request"). */
export interface ChatTurnOptions {
  agentLevel: AgentLevel;
  agentMode: boolean;
  privateMode: boolean;
  reportMode: ReportMode;
  outputFormat: OutputFormat;
  personaKey?: string;
  playbookId?: string;
  skillIds?: string[];
  /** Marketplace edition: its instructions and model configuration. */
  agentId?: string;
}

export const CHAT_TURN_DEFAULTS: Readonly<
  Pick<ChatTurnOptions, 'agentLevel' | 'agentMode' | 'privateMode' | 'reportMode' | 'outputFormat'>
> = {
  agentLevel: 'default',
  agentMode: true,
  privateMode: false,
  reportMode: 'with',
  outputFormat: 'plain',
};

export type InputFileRef = { fileId: string } | { filepath: string };

export interface ChatTurnRequest {
  /** Lower case; omitted starts a new conversation. */
  conversationId?: string;
  /** Joined by blank lines. */
  text: string;
  files: InputFileRef[];
  options: ChatTurnOptions;
}
