import { type AnthropicStopReason, type ChatFinishReason } from '../wire';

export function finishReasonFromAnthropic(
  stopReason: AnthropicStopReason | string | null | undefined,
): ChatFinishReason {
  switch (stopReason) {
    case 'max_tokens':
    // The context window, not max_tokens, ran out (newer models).
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      // end_turn, stop_sequence, pause_turn, and reasons added later.
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
