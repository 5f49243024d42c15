import { type TokenUsage, usageFromAnthropic, usageFromOpenAi } from '../usage/token-usage';
import { type AnthropicUsage, type ChatUsage } from '../wire';

export type StreamKind = 'chat' | 'messages' | 'responses';

interface ResponsesUsage {
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number };
  output_tokens_details?: { reasoning_tokens?: number };
}

export function usageFromResponses(usage: ResponsesUsage | null | undefined): TokenUsage {
  return usageFromOpenAi({
    prompt_tokens: usage?.input_tokens ?? 0,
    completion_tokens: usage?.output_tokens ?? 0,
    total_tokens: 0,
    prompt_tokens_details: { cached_tokens: usage?.input_tokens_details?.cached_tokens },
    completion_tokens_details: { reasoning_tokens: usage?.output_tokens_details?.reasoning_tokens },
  });
}

/**
 * Reads the usage the provider reports beside the bytes to the client, and counts output characters for
 * the estimate billed when a stream is cut short.
 */
export class StreamObserver {
  private anthropicUsage: Partial<AnthropicUsage> | null = null;
  private reported: TokenUsage | null = null;
  outputChars = 0;

  constructor(private readonly kind: StreamKind) {}

  /** Undefined for `[DONE]` or data that is not JSON. */
  observe(data: string): unknown {
    if (data === '[DONE]') return undefined;
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return undefined;
    }
    if (this.kind === 'chat') this.observeChat(event);
    else if (this.kind === 'messages') this.observeMessages(event);
    else this.observeResponses(event);
    return event;
  }

  reportedUsage(): TokenUsage | null {
    return this.reported;
  }

  /** Anthropic reports input first. */
  reportedInputTokens(): number | null {
    return this.anthropicUsage ? usageFromAnthropic(this.anthropicUsage).inputTokens : null;
  }

  private observeChat(chunk: Record<string, unknown>): void {
    const usage = chunk.usage as ChatUsage | null | undefined;
    if (usage) this.reported = usageFromOpenAi(usage);
    const choices = chunk.choices as { delta?: Record<string, unknown> }[] | undefined;
    const delta = choices?.[0]?.delta;
    if (!delta) return;
    if (typeof delta.content === 'string') this.outputChars += delta.content.length;
    if (typeof delta.reasoning_content === 'string') this.outputChars += delta.reasoning_content.length;
    const calls = delta.tool_calls as { function?: { name?: string; arguments?: string } }[] | undefined;
    for (const call of calls ?? []) {
      this.outputChars += (call.function?.arguments?.length ?? 0) + (call.function?.name?.length ?? 0);
    }
  }

  private observeMessages(event: Record<string, unknown>): void {
    switch (event.type) {
      case 'message_start': {
        const usage = (event.message as { usage?: Partial<AnthropicUsage> } | undefined)?.usage;
        this.anthropicUsage = { ...usage };
        break;
      }
      case 'content_block_delta': {
        const delta = event.delta as Record<string, unknown> | undefined;
        const piece = delta?.text ?? delta?.partial_json ?? delta?.thinking;
        if (typeof piece === 'string') this.outputChars += piece.length;
        break;
      }
      case 'message_delta': {
        const usage = event.usage as Partial<AnthropicUsage> | undefined;
        if (!usage) break;
        // Counts in the final delta replace those of message_start: cache tokens are counted once.
        const merged: Partial<AnthropicUsage> = { ...this.anthropicUsage };
        for (const [name, value] of Object.entries(usage)) {
          if (typeof value === 'number') (merged as Record<string, number>)[name] = value;
        }
        this.anthropicUsage = merged;
        this.reported = usageFromAnthropic(merged);
        break;
      }
    }
  }

  private observeResponses(event: Record<string, unknown>): void {
    if (event.type === 'response.output_text.delta' && typeof event.delta === 'string') {
      this.outputChars += event.delta.length;
    } else if (event.type === 'response.completed' || event.type === 'response.incomplete') {
      const usage = (event.response as { usage?: ResponsesUsage } | undefined)?.usage;
      if (usage) this.reported = usageFromResponses(usage);
    }
  }
}

/** Found from the end, where providers put it, so a large body (embeddings) is not parsed whole. */
export function usageObjectIn(body: Buffer | string): Record<string, unknown> | null {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const at = bytes.lastIndexOf('"usage"');
  if (at < 0) return null;
  let i = at + 7;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i++;
  if (bytes[i] !== 0x3a) return null;
  i++;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i++;
  if (bytes[i] !== 0x7b) return null;
  const open = i;
  let depth = 0;
  for (; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === 0x7b) depth++;
    else if (c === 0x7d && --depth === 0) {
      try {
        return JSON.parse(bytes.toString('utf8', open, i + 1)) as Record<string, unknown>;
      } catch {
        return null;
      }
    }
  }
  return null;
}
