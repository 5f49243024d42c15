import type { ChatCompletionChunk } from '@fed/contracts/chat-chunk';
import { createParser } from 'eventsource-parser';
import type { StreamEvent } from './turn-view';

/** The response's entries as reducer events, until `[DONE]` or the end of the body. */
export async function readTurnStream(response: Response, onEvent: (event: StreamEvent) => void): Promise<void> {
  if (!response.body) throw new Error('the answer has no body');
  const parser = createParser({
    onEvent: (message) => {
      if (message.data === '[DONE]') onEvent({ kind: 'done' });
      else onEvent({ kind: 'chunk', id: message.id, chunk: JSON.parse(message.data) as ChatCompletionChunk });
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    parser.feed(value);
  }
}

/** The chat request's options the app offers (document 2, "Chat request"); defaults as the API's, but Markdown. */
export interface TurnOptions {
  outputFormat: 'markdown' | 'plain';
  agentLevel: 'default' | 'high_performance';
  agentMode: boolean;
  privateMode: boolean;
  reportMode: 'with' | 'without';
  personaKey?: string;
  playbookId?: string;
  skillIds?: string[];
}

export const MAX_SKILLS = 10;

// The app renders Markdown, so it asks for it (the API's default, plain, strips it).
export const defaultTurnOptions: TurnOptions = {
  outputFormat: 'markdown',
  agentLevel: 'default',
  agentMode: true,
  privateMode: false,
  reportMode: 'with',
};

export interface TurnRequest {
  model: string;
  conversationId?: string;
  text: string;
  /** Files the message attaches: uploaded (POST /api/v1/files) or from the library (GET /api/v1/library). */
  files?: MessageFile[];
  options: TurnOptions;
}

/** An `input_file` part: exactly one of an uploaded file's id or a library item's filepath (document 2). */
export type MessageFile = { fileId: string } | { filepath: string };

function messageContent(request: TurnRequest): string | object[] {
  if (!request.files?.length) return request.text;
  return [{ type: 'text', text: request.text }, ...request.files.map((file) => ({ type: 'input_file', ...file }))];
}

/** `POST /api/v1/chat/completions` (document 2), streamed. */
export function startTurn(request: TurnRequest, token: string, signal: AbortSignal): Promise<Response> {
  return fetch('/api/v1/chat/completions', {
    method: 'POST',
    signal,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({
      model: request.model,
      stream: true,
      ...request.options,
      ...(request.options.skillIds?.length ? {} : { skillIds: undefined }),
      ...(request.conversationId ? { conversationId: request.conversationId } : {}),
      messages: [{ role: 'user', content: messageContent(request) }],
    }),
  });
}

/** `GET /api/v1/chat/completions/:conversationId` with `Last-Event-ID`: the rest of a turn in progress. */
export function resumeTurn(
  conversationId: string,
  lastEventId: string | undefined,
  token: string,
  signal: AbortSignal,
) {
  return fetch(`/api/v1/chat/completions/${encodeURIComponent(conversationId)}`, {
    signal,
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'text/event-stream',
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    },
  });
}

/** `POST /api/v1/chat/completions/:conversationId/cancel`. */
export function cancelTurn(conversationId: string, token: string): Promise<Response> {
  return fetch(`/api/v1/chat/completions/${encodeURIComponent(conversationId)}/cancel`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });
}
