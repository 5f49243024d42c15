import { openAiUsageOf, usageFromAnthropic, type TokenUsage } from '../usage/token-usage';
import {
  type AnthropicStreamEvent,
  type AnthropicUsage,
  type ChatCompletionChunk,
  type OpenAiErrorBody,
} from '../wire';
import { chatCompletionIdOf } from './anthropic-message-to-chat';
import { randomId } from './random-id';
import { CHAT_STREAM_DONE, encodeChatChunk } from './sse-encoding';
import { finishReasonFromAnthropic } from './stop-reasons';

export interface AnthropicStreamToChatOptions {
  /** The name the client asked for. */
  model: string;
  includeUsage: boolean;
  /** Unix seconds; defaults to now. */
  created?: number;
}

const USAGE_FIELDS = [
  'input_tokens',
  'cache_read_input_tokens',
  'cache_creation_input_tokens',
  'output_tokens',
] as const;

type Delta = ChatCompletionChunk['choices'][number]['delta'];
type FinishReason = ChatCompletionChunk['choices'][number]['finish_reason'];

/** Keeps only counters and the open tool calls, never the text. */
export class AnthropicStreamToChat {
  private readonly created: number;
  private id = chatCompletionIdOf(randomId('msg_'));
  /** Anthropic block index -> chat tool call index. */
  private readonly openToolCalls = new Map<number, number>();
  private toolCallCount = 0;
  private readonly counts: Partial<AnthropicUsage> = {};
  private usageReported = false;
  private ended = false;

  constructor(private readonly options: AnthropicStreamToChatOptions) {
    this.created = options.created ?? Math.floor(Date.now() / 1000);
  }

  push(event: AnthropicStreamEvent): string {
    if (this.ended || typeof event !== 'object' || event === null) return '';
    switch (event.type) {
      case 'message_start':
        if (typeof event.message?.id === 'string') this.id = chatCompletionIdOf(event.message.id);
        this.record(event.message?.usage);
        return this.chunk({ role: 'assistant', content: '' });
      case 'content_block_start':
        return this.blockStart(event);
      case 'content_block_delta':
        return this.blockDelta(event);
      case 'content_block_stop':
        this.openToolCalls.delete(event.index);
        return '';
      case 'message_delta':
        if (event.usage) {
          this.record(event.usage);
          this.usageReported = true;
        }
        return this.chunk({}, finishReasonFromAnthropic(event.delta?.stop_reason));
      case 'error': {
        const body: OpenAiErrorBody = {
          error: {
            message: String(event.error?.message ?? 'upstream error'),
            type: String(event.error?.type ?? 'api_error'),
            param: null,
            code: null,
          },
        };
        return encodeChatChunk(body);
      }
      default:
        // message_stop, ping, and event types added later.
        return '';
    }
  }

  end(): string {
    if (this.ended) return '';
    this.ended = true;
    if (!this.options.includeUsage) return CHAT_STREAM_DONE;
    const usageChunk: ChatCompletionChunk = {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.options.model,
      choices: [],
      usage: openAiUsageOf(this.usage()),
    };
    return encodeChatChunk(usageChunk) + CHAT_STREAM_DONE;
  }

  usage(): TokenUsage {
    return usageFromAnthropic(this.counts);
  }

  reportedUsage(): boolean {
    return this.usageReported;
  }

  private blockStart(event: Extract<AnthropicStreamEvent, { type: 'content_block_start' }>): string {
    const block = event.content_block;
    if (block?.type === 'tool_use') {
      const toolCallIndex = this.toolCallCount++;
      this.openToolCalls.set(event.index, toolCallIndex);
      return this.chunk({
        tool_calls: [
          { index: toolCallIndex, id: block.id, type: 'function', function: { name: block.name, arguments: '' } },
        ],
      });
    }
    // Blocks normally start empty; carry any text that came early.
    if (block?.type === 'text' && block.text) return this.chunk({ content: block.text });
    if (block?.type === 'thinking' && block.thinking) return this.chunk({ reasoning_content: block.thinking });
    return '';
  }

  private blockDelta(event: Extract<AnthropicStreamEvent, { type: 'content_block_delta' }>): string {
    const delta = event.delta;
    switch (delta?.type) {
      case 'text_delta':
        return this.chunk({ content: delta.text });
      case 'thinking_delta':
        return this.chunk({ reasoning_content: delta.thinking });
      case 'input_json_delta': {
        const toolCallIndex = this.openToolCalls.get(event.index);
        if (toolCallIndex === undefined) return '';
        return this.chunk({ tool_calls: [{ index: toolCallIndex, function: { arguments: delta.partial_json } }] });
      }
      default:
        // signature_delta, citations_delta, and delta types added later.
        return '';
    }
  }

  // Anthropic repeats its counts in message_delta: adding them would count cached tokens twice.
  private record(usage: Partial<AnthropicUsage> | null | undefined): void {
    if (!usage) return;
    for (const field of USAGE_FIELDS) {
      const value = usage[field];
      if (typeof value === 'number') this.counts[field] = value;
    }
  }

  private chunk(delta: Delta, finishReason: FinishReason = null): string {
    const chunk: ChatCompletionChunk = {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.options.model,
      choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    };
    return encodeChatChunk(chunk);
  }
}
