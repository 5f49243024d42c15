import { sseFrame } from './exchange';
import { type JsonObject, anthropicPrompt, estimateTokens, textPieces } from './prompt-text';

type ContentBlock = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: JsonObject };

interface MessageAnswer {
  id: string;
  block: ContentBlock;
  /** The text, or the tool input as JSON. */
  written: string;
  stopReason: 'end_turn' | 'tool_use';
  inputTokens: number;
  outputTokens: number;
}

function messageAnswer(body: JsonObject, serial: number): MessageAnswer {
  const prompt = anthropicPrompt(body);
  const inputTokens = estimateTokens(prompt.characters);
  const id = `msg_mock_${serial}`;
  if (prompt.toolName !== undefined) {
    const input = { input: prompt.lastUserText };
    const written = JSON.stringify(input);
    const block: ContentBlock = { type: 'tool_use', id: `toolu_mock_${serial}`, name: prompt.toolName, input };
    return { id, block, written, stopReason: 'tool_use', inputTokens, outputTokens: estimateTokens(written.length) };
  }
  const text = `Echo: ${prompt.lastUserText}`;
  const block: ContentBlock = { type: 'text', text };
  return { id, block, written: text, stopReason: 'end_turn', inputTokens, outputTokens: estimateTokens(text.length) };
}

function usage(inputTokens: number, outputTokens: number) {
  return {
    input_tokens: inputTokens,
    output_tokens: outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}

export function message(body: JsonObject, model: string, serial: number): unknown {
  const answer = messageAnswer(body, serial);
  return {
    id: answer.id,
    type: 'message',
    role: 'assistant',
    model,
    content: [answer.block],
    stop_reason: answer.stopReason,
    stop_sequence: null,
    usage: usage(answer.inputTokens, answer.outputTokens),
  };
}

export function messageStream(body: JsonObject, model: string, serial: number): string {
  const answer = messageAnswer(body, serial);
  const event = (data: { type: string } & JsonObject) => sseFrame(data, data.type);
  const start =
    answer.block.type === 'text'
      ? { type: 'text', text: '' }
      : { type: 'tool_use', id: answer.block.id, name: answer.block.name, input: {} };

  // Anthropic reports one output token at the start and the total in message_delta.
  let frames = event({
    type: 'message_start',
    message: {
      id: answer.id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usage(answer.inputTokens, 1),
    },
  });
  frames += event({ type: 'ping' });
  frames += event({ type: 'content_block_start', index: 0, content_block: start });
  for (const piece of textPieces(answer.written)) {
    const delta =
      answer.block.type === 'text'
        ? { type: 'text_delta', text: piece }
        : { type: 'input_json_delta', partial_json: piece };
    frames += event({ type: 'content_block_delta', index: 0, delta });
  }
  frames += event({ type: 'content_block_stop', index: 0 });
  frames += event({
    type: 'message_delta',
    delta: { stop_reason: answer.stopReason, stop_sequence: null },
    usage: { output_tokens: answer.outputTokens },
  });
  return frames + event({ type: 'message_stop' });
}

export function countTokens(body: JsonObject): unknown {
  return { input_tokens: estimateTokens(anthropicPrompt(body).characters) };
}

/** For clients that sent `anthropic-version`. */
export const ANTHROPIC_MODEL_LIST = {
  data: [{ type: 'model', id: 'mock-model', display_name: 'Mock model', created_at: '1970-01-01T00:00:00Z' }],
  has_more: false,
  first_id: 'mock-model',
  last_id: 'mock-model',
};
