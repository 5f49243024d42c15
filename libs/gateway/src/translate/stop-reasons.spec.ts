import { finishReasonFromAnthropic, stopReasonFromChat } from './stop-reasons';

describe('stop reason mappings', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    ['some_future_reason', 'stop'],
    [null, 'stop'],
  ])('maps the Anthropic stop_reason %s to the finish_reason %s', (stopReason, finishReason) => {
    expect(finishReasonFromAnthropic(stopReason)).toBe(finishReason);
  });

  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['tool_calls', 'tool_use'],
    ['function_call', 'tool_use'],
    ['content_filter', 'refusal'],
    [null, 'end_turn'],
  ])('maps the finish_reason %s to the Anthropic stop_reason %s', (finishReason, stopReason) => {
    expect(stopReasonFromChat(finishReason)).toBe(stopReason);
  });
});
