import { costOf } from '../usage/cost';
import { listPrice } from '../usage/price-table';
import { StreamObserver, usageObjectIn } from './stream-observer';

describe('StreamObserver: usage from the provider stream', () => {
  it('takes Anthropic input and cache counts from message_start and output from the final message_delta, counting cache tokens once', () => {
    const observer = new StreamObserver('messages');
    observer.observe(
      JSON.stringify({
        type: 'message_start',
        message: {
          usage: {
            input_tokens: 100,
            output_tokens: 1,
            cache_read_input_tokens: 5000,
            cache_creation_input_tokens: 200,
          },
        },
      }),
    );
    expect(observer.reportedInputTokens()).toBe(5300);
    observer.observe(
      JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'abcdefgh' } }),
    );
    // Newer API versions repeat the cache counts in message_delta: they replace, never add.
    observer.observe(
      JSON.stringify({
        type: 'message_delta',
        delta: { stop_reason: 'end_turn' },
        usage: { output_tokens: 42, cache_read_input_tokens: 5000, cache_creation_input_tokens: 200 },
      }),
    );
    expect(observer.reportedUsage()).toEqual({
      inputTokens: 5300,
      outputTokens: 42,
      cachedTokens: 5000,
      cacheCreationInputTokens: 200,
      reasoningTokens: 0,
    });
    expect(observer.outputChars).toBe(8);
  });

  it('has no reported usage for an Anthropic stream cut before message_delta, but knows its input', () => {
    const observer = new StreamObserver('messages');
    observer.observe(
      JSON.stringify({ type: 'message_start', message: { usage: { input_tokens: 30, output_tokens: 1 } } }),
    );
    expect(observer.reportedUsage()).toBeNull();
    expect(observer.reportedInputTokens()).toBe(30);
  });

  it('reads the chat-completions usage chunk with cached and reasoning tokens, and counts output characters', () => {
    const observer = new StreamObserver('chat');
    observer.observe(JSON.stringify({ choices: [{ index: 0, delta: { content: 'Hi there' } }], usage: null }));
    observer.observe(
      JSON.stringify({
        choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: 'f', arguments: '{"a":1}' } }] } }],
      }),
    );
    observer.observe(
      JSON.stringify({
        choices: [],
        usage: {
          prompt_tokens: 1000,
          completion_tokens: 300,
          total_tokens: 1300,
          prompt_tokens_details: { cached_tokens: 800 },
          completion_tokens_details: { reasoning_tokens: 200 },
        },
      }),
    );
    expect(observer.observe('[DONE]')).toBeUndefined();
    expect(observer.reportedUsage()).toEqual({
      inputTokens: 1000,
      outputTokens: 300,
      cachedTokens: 800,
      cacheCreationInputTokens: 0,
      reasoningTokens: 200,
    });
    expect(observer.outputChars).toBe('Hi there'.length + 1 + 7);
  });

  it('reads the usage of response.completed in a Responses stream', () => {
    const observer = new StreamObserver('responses');
    observer.observe(JSON.stringify({ type: 'response.output_text.delta', delta: 'abc' }));
    observer.observe(
      JSON.stringify({
        type: 'response.completed',
        response: { usage: { input_tokens: 9, output_tokens: 4, input_tokens_details: { cached_tokens: 2 } } },
      }),
    );
    expect(observer.reportedUsage()).toMatchObject({ inputTokens: 9, outputTokens: 4, cachedTokens: 2 });
  });

  it('ignores data that is not JSON', () => {
    const observer = new StreamObserver('chat');
    expect(observer.observe('not json')).toBeUndefined();
    expect(observer.reportedUsage()).toBeNull();
  });
});

describe('usageObjectIn', () => {
  it('finds the top-level usage at the end of a large body without parsing the rest', () => {
    const body = JSON.stringify({
      data: Array.from({ length: 1000 }, () => ({ embedding: [0.1, 0.2] })),
      usage: { prompt_tokens: 5 },
    });
    expect(usageObjectIn(body)).toEqual({ prompt_tokens: 5 });
    expect(usageObjectIn('{"text":"the word \\"usage\\" in a string"}')).toBeNull();
    expect(usageObjectIn('{"usage": null}')).toBeNull();
  });
});

describe('cost', () => {
  it('prices uncached input, cache reads, cache writes and output each at its own price', () => {
    const price = listPrice('claude-sonnet-4-5-20250929');
    expect(price).toEqual({ input: 3, cacheWrite: 3.75, cacheRead: 0.3, output: 15 });
    const cost = costOf(
      { inputTokens: 5300, cachedTokens: 5000, cacheCreationInputTokens: 200, outputTokens: 42, reasoningTokens: 0 },
      price as NonNullable<typeof price>,
    );
    // 100 x 3 + 5000 x 0.3 + 200 x 3.75 + 42 x 15 = 3,180 USD per million tokens.
    expect(cost).toBeCloseTo(0.00318, 10);
    expect(listPrice('some-unknown-model')).toBeNull();
    expect(listPrice('gpt-4o-mini-2024-07-18')).toEqual(listPrice('gpt-4o-mini'));
  });
});
