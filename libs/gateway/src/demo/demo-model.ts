import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { type UpstreamAnswer, type UpstreamEndpoint } from '../upstream/upstream-client';
import {
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionRequest,
  type ChatMessage,
  type ChatTool,
  type ChatToolCall,
  type ChatUsage,
  type EmbeddingRequest,
  type EmbeddingResponse,
} from '../wire';

export const DEMO_NOTICE = 'This is the offline demo model of the federation platform: no real model was called.';

const estimateTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

function textOf(message: ChatMessage | undefined): string {
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .filter(Boolean)
    .join(' ');
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Deterministic: filled from the user's words. */
function argumentsFor(tool: ChatTool, userText: string): Record<string, unknown> {
  const schema = tool.function.parameters as
    { properties?: Record<string, { type?: string; enum?: unknown[] }>; required?: string[] } | undefined;
  const properties = schema?.properties ?? {};
  const names = schema?.required?.length ? schema.required : Object.keys(properties).slice(0, 1);
  const args: Record<string, unknown> = {};
  for (const name of names) {
    const property = properties[name] ?? {};
    if (property.enum && property.enum.length > 0) args[name] = property.enum[0];
    else if (property.type === 'number' || property.type === 'integer') args[name] = 1;
    else if (property.type === 'boolean') args[name] = true;
    else if (property.type === 'array') args[name] = [];
    else if (property.type === 'object') args[name] = {};
    else args[name] = clip(userText, 200) || 'demo';
  }
  return args;
}

interface DemoReply {
  text: string | null;
  toolCall: ChatToolCall | null;
  usage: ChatUsage;
}

/**
 * The built-in `demo` model: offline and deterministic. Given tools it calls one (the one the user names,
 * else the first), so an agent's tool loop can be tried end to end offline.
 */
export function demoReply(request: ChatCompletionRequest): DemoReply {
  const messages = request.messages ?? [];
  const last = messages[messages.length - 1];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const userText = textOf(lastUser);
  const promptText = messages.map((m) => textOf(m)).join('\n');
  const digest = createHash('sha256').update(JSON.stringify(messages)).digest('hex');
  let text: string | null = null;
  let toolCall: ChatToolCall | null = null;
  const tools = (request.tools ?? []).filter((t) => t.type === 'function' && t.function?.name);
  if (last?.role === 'tool') {
    const call = messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.id === last.tool_call_id);
    text = `${DEMO_NOTICE} The tool ${call?.function.name ?? 'called'} returned: ${clip(textOf(last), 300) || '(nothing)'}`;
  } else if (tools.length > 0 && last?.role === 'user' && request.tool_choice !== 'none') {
    const named = tools.find((t) => userText.toLowerCase().includes(t.function.name.toLowerCase()));
    const forced = typeof request.tool_choice === 'object' ? request.tool_choice.function.name : undefined;
    const tool = tools.find((t) => t.function.name === forced) ?? named ?? (tools[0] as ChatTool);
    toolCall = {
      id: `call_demo_${digest.slice(0, 16)}`,
      type: 'function',
      function: { name: tool.function.name, arguments: JSON.stringify(argumentsFor(tool, userText)) },
    };
  } else {
    text = `${DEMO_NOTICE} You said: "${clip(userText, 300)}"`;
  }
  const completionTokens = estimateTokens(text ?? toolCall?.function.arguments ?? '');
  const promptTokens = estimateTokens(promptText) + 3 * messages.length;
  return {
    text,
    toolCall,
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

function completionOf(request: ChatCompletionRequest, reply: DemoReply, id: string, created: number): ChatCompletion {
  return {
    id,
    object: 'chat.completion',
    created,
    model: request.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text,
          ...(reply.toolCall ? { tool_calls: [reply.toolCall] } : {}),
          refusal: null,
        },
        finish_reason: reply.toolCall ? 'tool_calls' : 'stop',
        logprobs: null,
      },
    ],
    usage: reply.usage,
  };
}

function* chunksOf(request: ChatCompletionRequest, reply: DemoReply, id: string, created: number) {
  const includeUsage = request.stream_options?.include_usage === true;
  const chunk = (
    delta: ChatCompletionChunk['choices'][number]['delta'],
    finish: ChatCompletionChunk['choices'][number]['finish_reason'] = null,
  ): ChatCompletionChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: request.model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    ...(includeUsage ? { usage: null } : {}),
  });
  yield chunk({ role: 'assistant', content: '' });
  if (reply.text !== null) {
    for (let i = 0; i < reply.text.length; i += 24) yield chunk({ content: reply.text.slice(i, i + 24) });
  }
  if (reply.toolCall) {
    const args = reply.toolCall.function.arguments;
    const half = Math.ceil(args.length / 2);
    yield chunk({
      tool_calls: [
        {
          index: 0,
          id: reply.toolCall.id,
          type: 'function',
          function: { name: reply.toolCall.function.name, arguments: '' },
        },
      ],
    });
    yield chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, half) } }] });
    yield chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] });
  }
  yield chunk({}, reply.toolCall ? 'tool_calls' : 'stop');
  if (includeUsage) {
    yield { id, object: 'chat.completion.chunk', created, model: request.model, choices: [], usage: reply.usage };
  }
}

function embeddingOf(text: string, dimensions: number): number[] {
  const vector: number[] = [];
  let block = Buffer.alloc(0);
  for (let i = 0; vector.length < dimensions; i++) {
    if (i % 16 === 0) block = createHash('sha256').update(`${i}:${text}`).digest();
    vector.push((block.readUInt16BE((i % 16) * 2) / 65535) * 2 - 1);
  }
  const norm = Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0)) || 1;
  return vector.map((v) => v / norm);
}

function answer(status: number, contentType: string, pieces: Iterable<string>): UpstreamAnswer {
  const body = Readable.from(
    (function* () {
      for (const piece of pieces) yield Buffer.from(piece, 'utf8');
    })(),
  );
  return {
    status,
    headers: { 'content-type': contentType },
    body,
    discard: async () => {
      body.destroy();
    },
  };
}

export function demoAnswer(endpoint: UpstreamEndpoint, body: string): UpstreamAnswer {
  if (endpoint === 'embeddings') {
    const request = JSON.parse(body) as EmbeddingRequest;
    const inputs = Array.isArray(request.input) ? request.input : [request.input];
    const texts = inputs.map((input) => (typeof input === 'string' ? input : JSON.stringify(input)));
    const dimensions = request.dimensions ?? 64;
    const tokens = texts.reduce((sum, text) => sum + estimateTokens(text), 0);
    const response: EmbeddingResponse = {
      object: 'list',
      data: texts.map((text, index) => ({ object: 'embedding', index, embedding: embeddingOf(text, dimensions) })),
      model: request.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    };
    return answer(200, 'application/json', [JSON.stringify(response)]);
  }
  const request = JSON.parse(body) as ChatCompletionRequest;
  const reply = demoReply(request);
  const digest = createHash('sha256').update(body).digest('hex');
  const id = `chatcmpl-demo${digest.slice(0, 20)}`;
  const created = Math.floor(Date.now() / 1000);
  if (!request.stream)
    return answer(200, 'application/json', [JSON.stringify(completionOf(request, reply, id, created))]);
  const events = (function* () {
    for (const chunk of chunksOf(request, reply, id, created)) yield `data: ${JSON.stringify(chunk)}\n\n`;
    yield 'data: [DONE]\n\n';
  })();
  return answer(200, 'text/event-stream; charset=utf-8', events);
}
