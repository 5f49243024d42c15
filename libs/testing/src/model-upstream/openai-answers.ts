import { sseFrame } from './exchange';
import {
  type JsonObject,
  chatPrompt,
  estimateTokens,
  halves,
  isObject,
  responsesPrompt,
  textPieces,
} from './prompt-text';

// Not the clock, so two runs answer byte for byte the same.
const CREATED = 0;
const DONE = sseFrame('[DONE]');

interface ChatAnswer {
  text: string | null;
  toolCall: { id: string; type: 'function'; function: { name: string; arguments: string } } | undefined;
  finishReason: 'stop' | 'tool_calls';
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

function chatAnswer(body: JsonObject, serial: number): ChatAnswer {
  const prompt = chatPrompt(body);
  const promptTokens = estimateTokens(prompt.characters);
  const usage = (answer: string) => {
    const completionTokens = estimateTokens(answer.length);
    return {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    };
  };
  if (prompt.toolName !== undefined) {
    const args = JSON.stringify({ input: prompt.lastUserText });
    return {
      text: null,
      toolCall: { id: `call_mock_${serial}`, type: 'function', function: { name: prompt.toolName, arguments: args } },
      finishReason: 'tool_calls',
      usage: usage(args),
    };
  }
  const text = `Echo: ${prompt.lastUserText}`;
  return { text, toolCall: undefined, finishReason: 'stop', usage: usage(text) };
}

export function chatCompletion(body: JsonObject, model: string, serial: number): unknown {
  const answer = chatAnswer(body, serial);
  const message: JsonObject = { role: 'assistant', content: answer.text, refusal: null };
  if (answer.toolCall) message.tool_calls = [answer.toolCall];
  return {
    id: `chatcmpl-mock-${serial}`,
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: answer.finishReason }],
    usage: answer.usage,
  };
}

export function chatCompletionStream(body: JsonObject, model: string, serial: number): string {
  const answer = chatAnswer(body, serial);
  const includeUsage = isObject(body.stream_options) && body.stream_options.include_usage === true;
  const id = `chatcmpl-mock-${serial}`;
  const chunk = (delta: JsonObject, finishReason: string | null = null) => {
    const choices = [{ index: 0, delta, logprobs: null, finish_reason: finishReason }];
    // OpenAI marks every chunk with `usage: null` once usage was asked for, and none otherwise.
    const frame = includeUsage
      ? { id, object: 'chat.completion.chunk', created: CREATED, model, choices, usage: null }
      : { id, object: 'chat.completion.chunk', created: CREATED, model, choices };
    return sseFrame(frame);
  };

  let frames = chunk({ role: 'assistant', content: answer.text === null ? null : '' });
  if (answer.toolCall) {
    const [first, second] = halves(answer.toolCall.function.arguments);
    const { id: callId, type, function: fn } = answer.toolCall;
    frames += chunk({ tool_calls: [{ index: 0, id: callId, type, function: { name: fn.name, arguments: first } }] });
    frames += chunk({ tool_calls: [{ index: 0, function: { arguments: second } }] });
  } else {
    for (const piece of textPieces(answer.text ?? '')) frames += chunk({ content: piece });
  }
  frames += chunk({}, answer.finishReason);
  if (includeUsage) {
    frames += sseFrame({
      id,
      object: 'chat.completion.chunk',
      created: CREATED,
      model,
      choices: [],
      usage: answer.usage,
    });
  }
  return frames + DONE;
}

/** From a hash of the text; multiples of 1/128, so float32 holds them exactly. */
export function embeddingOf(text: string): number[] {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  hash ||= 1;
  const vector: number[] = [];
  for (let i = 0; i < 8; i++) {
    hash ^= hash << 13;
    hash ^= hash >>> 17;
    hash ^= hash << 5;
    vector.push(((hash & 0xff) - 128) / 128);
  }
  return vector;
}

/** Token arrays are hashed by their printed form. */
function embeddingInputs(input: unknown): string[] {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input)) return [];
  if (input.every((item) => typeof item === 'number')) return [input.join(',')];
  return input.map((item) => (typeof item === 'string' ? item : Array.isArray(item) ? item.join(',') : ''));
}

export function embeddings(body: JsonObject, model: string): unknown {
  const inputs = embeddingInputs(body.input);
  // The OpenAI SDK asks for base64 (little-endian float32) unless its caller chose a format.
  const base64 = body.encoding_format === 'base64';
  let characters = 0;
  const data = inputs.map((text, index) => {
    characters += text.length;
    const vector = embeddingOf(text);
    const embedding = base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
    return { object: 'embedding', index, embedding };
  });
  const tokens = estimateTokens(characters);
  return { object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
}

interface ResponseParts {
  id: string;
  messageId: string;
  model: string;
  text: string;
  usage: JsonObject;
}

function responseParts(body: JsonObject, model: string, serial: number): ResponseParts {
  const prompt = responsesPrompt(body);
  const text = `Echo: ${prompt.lastUserText}`;
  const inputTokens = estimateTokens(prompt.characters);
  const outputTokens = estimateTokens(text.length);
  return {
    id: `resp_mock_${serial}`,
    messageId: `msg_mock_${serial}`,
    model,
    text,
    usage: {
      input_tokens: inputTokens,
      output_tokens: outputTokens,
      total_tokens: inputTokens + outputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

function outputMessage(parts: ResponseParts, status: 'in_progress' | 'completed', text: string | undefined) {
  const content = text === undefined ? [] : [{ type: 'output_text', text, annotations: [] }];
  return { type: 'message', id: parts.messageId, role: 'assistant', status, content };
}

function responseObject(parts: ResponseParts, completed: boolean) {
  return {
    id: parts.id,
    object: 'response',
    created_at: CREATED,
    status: completed ? 'completed' : 'in_progress',
    error: null,
    incomplete_details: null,
    model: parts.model,
    output: completed ? [outputMessage(parts, 'completed', parts.text)] : [],
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: completed ? parts.usage : null,
  };
}

export function response(body: JsonObject, model: string, serial: number): unknown {
  return responseObject(responseParts(body, model, serial), true);
}

/** The SDK's accumulator needs the full sequence to build its snapshot. */
export function responseStream(body: JsonObject, model: string, serial: number): string {
  const parts = responseParts(body, model, serial);
  let sequence = 0;
  const event = (type: string, fields: JsonObject) => sseFrame({ type, sequence_number: sequence++, ...fields }, type);
  const at = { item_id: parts.messageId, output_index: 0, content_index: 0 };
  const emptyPart = { type: 'output_text', text: '', annotations: [] };

  let frames = event('response.created', { response: responseObject(parts, false) });
  frames += event('response.in_progress', { response: responseObject(parts, false) });
  frames += event('response.output_item.added', {
    output_index: 0,
    item: outputMessage(parts, 'in_progress', undefined),
  });
  frames += event('response.content_part.added', { ...at, part: emptyPart });
  for (const delta of textPieces(parts.text)) {
    frames += event('response.output_text.delta', { ...at, delta, logprobs: [] });
  }
  frames += event('response.output_text.done', { ...at, text: parts.text, logprobs: [] });
  frames += event('response.content_part.done', {
    ...at,
    part: { type: 'output_text', text: parts.text, annotations: [] },
  });
  frames += event('response.output_item.done', {
    output_index: 0,
    item: outputMessage(parts, 'completed', parts.text),
  });
  return frames + event('response.completed', { response: responseObject(parts, true) });
}

export const MODEL_LIST = {
  object: 'list',
  data: [{ id: 'mock-model', object: 'model', created: 0, owned_by: 'mock' }],
};
