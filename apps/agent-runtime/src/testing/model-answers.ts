import type { RecordedRequest, SseItem, SseStep } from '@fed/testing';

// Streamed chat-completions answers of a provider, for ScriptedUpstream.enqueue().

const CHAT_PATH = '/v1/chat/completions';

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): SseItem {
  return {
    data: {
      id: 'chatcmpl-test',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'upstream',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    },
  };
}

export interface TextAnswerOptions {
  pauseMs?: number;
  /** After the pieces, wait this long before finishing (a model still thinking). */
  stallMs?: number;
}

export function textAnswer(pieces: readonly string[], options: TextAnswerOptions = {}): SseStep {
  const events: SseItem[] = [chunk({ role: 'assistant', content: '' })];
  pieces.forEach((piece, index) => {
    if (index > 0 && options.pauseMs) events.push({ delayMs: options.pauseMs });
    events.push(chunk({ content: piece }));
  });
  if (options.stallMs) events.push({ delayMs: options.stallMs });
  events.push(chunk({}, 'stop'), { data: '[DONE]' });
  return { kind: 'sse', path: CHAT_PATH, events };
}

export interface ScriptedToolCall {
  id: string;
  name: string;
  /** An object is sent as JSON; a string as is (to send broken JSON). */
  arguments: Record<string, unknown> | string;
}

/** An answer asking for tool calls (arguments split in two deltas, as providers do), after optional text. */
export function toolCallAnswer(calls: readonly ScriptedToolCall[], text?: string): SseStep {
  const events: SseItem[] = [chunk({ role: 'assistant', content: text === undefined ? null : '' })];
  if (text) events.push(chunk({ content: text }));
  calls.forEach((call, index) => {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    const half = Math.floor(args.length / 2);
    events.push(
      chunk({
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.name, arguments: args.slice(0, half) } },
        ],
      }),
      chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }),
    );
  });
  events.push(chunk({}, 'tool_calls'), { data: '[DONE]' });
  return { kind: 'sse', path: CHAT_PATH, events };
}

/** A model that starts answering and then never finishes (until the client goes away). */
export function stalledAnswer(pieces: readonly string[]): SseStep {
  return textAnswer(pieces, { stallMs: 600_000 });
}

export interface SentChatRequest {
  model: string;
  messages: { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: { type: string; function: { name: string } }[];
  tool_choice?: string;
  stream?: boolean;
}

export function sentRequest(request: RecordedRequest | undefined): SentChatRequest {
  if (!request) throw new Error('the model received no such request');
  return request.json as SentChatRequest;
}
