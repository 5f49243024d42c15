import type { SseItem, SseStep } from '@fed/testing';

// Streamed chat-completions answers of the scripted provider (ScriptedUpstream.enqueue).

function piece(delta: Record<string, unknown>, finishReason: string | null = null): SseItem {
  return {
    data: {
      id: 'chatcmpl-e2e',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'upstream',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    },
  };
}

/** A streamed text answer; `pauseMs` between pieces. */
export function textAnswer(pieces: string[], pauseMs = 0): SseStep {
  return {
    kind: 'sse',
    path: '/v1/chat/completions',
    events: [
      piece({ role: 'assistant', content: '' }),
      ...pieces.flatMap((content, index): SseItem[] =>
        index > 0 && pauseMs > 0 ? [{ delayMs: pauseMs }, piece({ content })] : [piece({ content })],
      ),
      piece({}, 'stop'),
      { data: '[DONE]' },
    ],
  };
}

export function toolCall(id: string, name: string, args: Record<string, unknown>): SseStep {
  return textThenToolCall(null, id, name, args);
}

/** An answer that says `text` (null: nothing), then calls one tool. */
export function textThenToolCall(
  text: string | null,
  id: string,
  name: string,
  args: Record<string, unknown>,
): SseStep {
  return {
    kind: 'sse',
    path: '/v1/chat/completions',
    events: [
      piece({ role: 'assistant', content: text }),
      piece({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] }),
      piece({}, 'tool_calls'),
      { data: '[DONE]' },
    ],
  };
}
