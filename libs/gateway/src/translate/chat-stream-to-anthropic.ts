import { anthropicUsageOf, usageFromOpenAi, ZERO_USAGE, type TokenUsage } from '../usage/token-usage';
import { type AnthropicContentBlock, type AnthropicStreamEvent, type ChatCompletionChunk } from '../wire';
import { stopReasonOf } from './chat-completion-to-anthropic';
import { randomId } from './random-id';
import { encodeAnthropicEvent } from './sse-encoding';
import { type ChatStreamErrorChunk } from './wire-extensions';

export interface ChatStreamToAnthropicOptions {
  /** The name the client asked for. */
  model: string;
  /** Reported in message_start before the upstream says anything; agent clients track cost from it. */
  estimatedInputTokens: number;
  messageId?: string;
}

type Delta = ChatCompletionChunk['choices'][number]['delta'];
type ToolCallDelta = NonNullable<Delta['tool_calls']>[number];

/** Shared error types keep their name; anything else is a generic upstream failure. */
const ANTHROPIC_ERROR_TYPES = new Set([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'rate_limit_error',
  'api_error',
  'overloaded_error',
]);

/** Keeps only the open block, counters, and one entry per tool call, never the text. */
export class ChatStreamToAnthropic {
  private readonly messageId: string;
  private started = false;
  private ended = false;
  private nextBlockIndex = 0;
  private openBlock: { type: 'text' | 'thinking' | 'tool_use'; index: number } | null = null;
  private readonly toolBlocks = new Map<number, { index: number; id: string }>();
  private finishReason: string | null = null;
  private tokens: TokenUsage | null = null;

  constructor(private readonly options: ChatStreamToAnthropicOptions) {
    this.messageId = options.messageId ?? randomId('msg_');
  }

  push(chunk: ChatCompletionChunk): string {
    if (this.ended || typeof chunk !== 'object' || chunk === null) return '';
    let out = this.start();

    const error = (chunk as ChatStreamErrorChunk).error;
    if (typeof error === 'object' && error !== null) {
      const type = typeof error.type === 'string' && ANTHROPIC_ERROR_TYPES.has(error.type) ? error.type : 'api_error';
      const message = typeof error.message === 'string' ? error.message : 'upstream error';
      return out + encodeAnthropicEvent({ type: 'error', error: { type, message } });
    }

    // Only the first choice: the client asked for one answer.
    const choice = Array.isArray(chunk.choices) ? chunk.choices.find((c) => (c?.index ?? 0) === 0) : undefined;
    if (choice) {
      const delta: Delta = choice.delta ?? {};
      if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') {
        out += this.ensureOpen('thinking', { type: 'thinking', thinking: '', signature: '' });
        out += this.blockDelta({ type: 'thinking_delta', thinking: delta.reasoning_content });
      }
      // A refusal is what the model said instead of an answer.
      for (const text of [delta.content, delta.refusal]) {
        if (typeof text !== 'string' || text === '') continue;
        out += this.ensureOpen('text', { type: 'text', text: '' });
        out += this.blockDelta({ type: 'text_delta', text });
      }
      for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) out += this.toolCall(call);
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }

    if (typeof chunk.usage === 'object' && chunk.usage !== null) this.tokens = usageFromOpenAi(chunk.usage);
    return out;
  }

  end(): string {
    if (this.ended) return '';
    let out = this.start();
    this.ended = true;
    out += this.closeOpenBlock();
    out += encodeAnthropicEvent({
      type: 'message_delta',
      delta: { stop_reason: stopReasonOf(this.finishReason, this.toolBlocks.size > 0), stop_sequence: null },
      usage: anthropicUsageOf(this.usage()),
    });
    return out + encodeAnthropicEvent({ type: 'message_stop' });
  }

  /** The estimate the client was given, until the upstream reports. */
  usage(): TokenUsage {
    return this.tokens ?? { ...ZERO_USAGE, inputTokens: this.options.estimatedInputTokens };
  }

  reportedUsage(): boolean {
    return this.tokens !== null;
  }

  private start(): string {
    if (this.started) return '';
    this.started = true;
    return encodeAnthropicEvent({
      type: 'message_start',
      message: {
        id: this.messageId,
        type: 'message',
        role: 'assistant',
        model: this.options.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: this.options.estimatedInputTokens, output_tokens: 0 },
      },
    });
  }

  private toolCall(call: ToolCallDelta): string {
    if (typeof call !== 'object' || call === null) return '';
    const toolIndex = typeof call.index === 'number' ? call.index : 0;
    let out = '';
    let block = this.toolBlocks.get(toolIndex);
    // Some servers repeat the id on every delta; a different id under a reused index is a new call.
    if (!block || (typeof call.id === 'string' && call.id !== '' && call.id !== block.id)) {
      out += this.closeOpenBlock();
      block = { index: this.nextBlockIndex++, id: call.id || randomId('toolu_') };
      this.toolBlocks.set(toolIndex, block);
      this.openBlock = { type: 'tool_use', index: block.index };
      out += encodeAnthropicEvent({
        type: 'content_block_start',
        index: block.index,
        content_block: { type: 'tool_use', id: block.id, name: call.function?.name ?? '', input: {} },
      });
    }
    const partialJson = call.function?.arguments;
    if (typeof partialJson === 'string' && partialJson !== '') {
      // Late pieces of an earlier call still go to its own block.
      out += encodeAnthropicEvent({
        type: 'content_block_delta',
        index: block.index,
        delta: { type: 'input_json_delta', partial_json: partialJson },
      });
    }
    return out;
  }

  private ensureOpen(type: 'text' | 'thinking', contentBlock: AnthropicContentBlock): string {
    if (this.openBlock?.type === type) return '';
    const out = this.closeOpenBlock();
    this.openBlock = { type, index: this.nextBlockIndex++ };
    return (
      out +
      encodeAnthropicEvent({ type: 'content_block_start', index: this.openBlock.index, content_block: contentBlock })
    );
  }

  private blockDelta(delta: Extract<AnthropicStreamEvent, { type: 'content_block_delta' }>['delta']): string {
    return encodeAnthropicEvent({ type: 'content_block_delta', index: this.openBlock!.index, delta });
  }

  private closeOpenBlock(): string {
    if (!this.openBlock) return '';
    const index = this.openBlock.index;
    this.openBlock = null;
    return encodeAnthropicEvent({ type: 'content_block_stop', index });
  }
}
