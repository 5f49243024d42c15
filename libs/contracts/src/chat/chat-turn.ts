import { type AgentLevel, type OutputFormat, type ReportMode } from './chat-request';

// A chat turn as every front door asks for it: the chat endpoint, A2A `message/send|stream` and MCP
// `execute_chat` each validate their own input and hand the same request to the turn starter.

/** The options of a turn, defaults applied (document 2, "Chat request"). */
export interface ChatTurnOptions {
  agentLevel: AgentLevel;
  agentMode: boolean;
  privateMode: boolean;
  reportMode: ReportMode;
  outputFormat: OutputFormat;
  personaKey?: string;
  playbookId?: string;
  skillIds?: string[];
  /** Marketplace edition: the agent that answers (its instructions and model configuration). */
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

/** A validated request for one turn. */
export interface ChatTurnRequest {
  /** Lower case; omitted starts a new conversation. */
  conversationId?: string;
  /** The user message's text parts, joined by blank lines. */
  text: string;
  /** The user message's input_file parts. */
  files: InputFileRef[];
  options: ChatTurnOptions;
}
