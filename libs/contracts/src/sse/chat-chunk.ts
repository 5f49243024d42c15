// Document 2 ("Events"). Clients ignore unknown fields: these types describe what we send.

export type TaskStatus = 'in_progress' | 'completed' | 'failed' | 'error' | 'pending';
export type FinishReason = 'stop' | 'error';
export type ChunkStatus = 'processing' | 'unfinished';
export type InteractionType = 'choice' | 'confirmation' | 'question';
export type UiResourceOrigin = 'first-party' | 'external';

export interface TaskFile {
  filename: string;
  size: number;
  filepath: string;
  mimeType?: string;
}

export interface Task {
  messageId: string;
  conversationId: string;
  callId?: string;
  actionType: string;
  title?: string;
  description?: string;
  content?: string;
  status: TaskStatus;
  metadata?: Record<string, unknown>;
  files?: TaskFile[];
  /** Unix milliseconds. */
  timestamp: number;
  createdAt: string;
  updatedAt: string;
}

export interface HtmlUiResource {
  type: 'html';
  origin: UiResourceOrigin;
  altText: string;
  tool_call_id: string;
  uri: string;
  tool_name: string;
  server_name: string;
  mime_type: string;
  meta?: Record<string, unknown>;
  capabilities?: Record<string, unknown>;
  size?: number;
}

export interface DataUiResource {
  type: 'data';
  origin: 'first-party';
  altText: string;
  kind: string;
  data: Record<string, unknown>;
  generated_at?: string;
}

export type UiResource = HtmlUiResource | DataUiResource;

export interface Interaction {
  interactionType: InteractionType;
  content: string;
  options?: string[];
  uiResource?: UiResource;
}

export interface Deliverable {
  filename: string;
  filepath: string;
  source: 'agent' | 'user';
  isPrimary: boolean;
  createdAt: string;
  mimeType?: string;
  size?: number;
}

export interface ChunkDelta {
  role?: 'assistant';
  messageInfo?: { conversationId: string; messageId: string };
  content?: string;
  tasks?: Task[];
  interaction?: Interaction;
  uiResource?: UiResource;
}

export interface ChunkChoice {
  index: 0;
  delta: ChunkDelta;
  finishReason: FinishReason | null;
  status?: ChunkStatus;
  deliverables?: Deliverable[];
}

export interface ChatCompletionChunk {
  createdAt: string;
  model: string;
  choices: [ChunkChoice];
  /** On a final chunk with `finishReason: error` (the spec leaves its shape open). */
  error?: { code: string; message: string };
}

function chunk(model: string, choice: Omit<ChunkChoice, 'index'>, at: Date): ChatCompletionChunk {
  return { createdAt: at.toISOString(), model, choices: [{ index: 0, ...choice }] };
}

/** Item 2 of the stream. */
export function roleChunk(model: string, conversationId: string, messageId: string, at = new Date()) {
  return chunk(
    model,
    { delta: { role: 'assistant', messageInfo: { conversationId, messageId } }, finishReason: null },
    at,
  );
}

/** Item 3: text, task updates, an interaction request or a display-only UI resource. */
export function contentChunk(model: string, delta: Omit<ChunkDelta, 'role' | 'messageInfo'>, at = new Date()) {
  return chunk(model, { delta, finishReason: null }, at);
}

/** Item 4. */
export function finalChunk(
  model: string,
  finishReason: FinishReason,
  extra: { status?: ChunkStatus; deliverables?: Deliverable[]; content?: string } = {},
  at = new Date(),
) {
  const choice: Omit<ChunkChoice, 'index'> = {
    delta: extra.content === undefined ? {} : { content: extra.content },
    finishReason,
  };
  if (extra.status) choice.status = extra.status;
  if (extra.deliverables) choice.deliverables = extra.deliverables;
  return chunk(model, choice, at);
}

/** So a client can tell a failed turn from a stopped one. */
export function errorChunk(model: string, code: string, message: string, at = new Date()): ChatCompletionChunk {
  return { ...finalChunk(model, 'error', { status: 'unfinished' }, at), error: { code, message } };
}

/** The chunk log broke under the turn: the rest will never be streamed; the stored message is the answer of record. */
export const STREAM_LOST = {
  code: 'stream_lost',
  message: 'The live stream of this answer was lost; the conversation history has what the agent wrote.',
} as const;

export function streamLostChunk(model: string, at = new Date()): ChatCompletionChunk {
  return errorChunk(model, STREAM_LOST.code, STREAM_LOST.message, at);
}

/** Item 4 has a `finishReason`. */
export function isFinalChunkData(data: string): boolean {
  try {
    const chunk = JSON.parse(data) as { choices?: { finishReason?: unknown }[] } | null;
    return typeof chunk?.choices?.[0]?.finishReason === 'string';
  } catch {
    return false;
  }
}
