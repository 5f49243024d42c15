import { type AnthropicStopReason, type ChatFinishReason } from '../wire';

export function finishReasonFromAnthropic(
  stopReason: AnthropicStopReason | string | null | undefined,
): ChatFinishReason {
  switch (stopReason) {
    case 'max_tokens':
    // Newer models stop with this when the context window, not max_tokens, ran out.
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      // end_turn, stop_sequence, pause_turn, and reasons added after this was written.
      return 'stop';
  }
}

export function stopReasonFromChat(finishReason: ChatFinishReason | string | null | undefined): AnthropicStopReason {
  switch (finishReason) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}
