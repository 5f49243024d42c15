import { CHAT_STREAM_DONE, encodeAnthropicEvent, encodeChatChunk } from './sse-encoding';

describe('SSE framing', () => {
  it('frames a chat chunk as one data line and a blank line', () => {
    const framed = encodeChatChunk({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [] });
    expect(framed).toMatch(/^data: [^\n]+\n\n$/);
    expect(JSON.parse(framed.slice('data: '.length))).toMatchObject({ id: 'c', choices: [] });
    expect(CHAT_STREAM_DONE).toBe('data: [DONE]\n\n');
  });

  it('frames an Anthropic event as an event line named by its type, a data line and a blank line', () => {
    const framed = encodeAnthropicEvent({ type: 'content_block_stop', index: 3 });
    const [eventLine, dataLine, ...rest] = framed.split('\n');
    expect(eventLine).toBe('event: content_block_stop');
    expect(JSON.parse(dataLine!.slice('data: '.length))).toEqual({ type: 'content_block_stop', index: 3 });
    expect(rest).toEqual(['', '']);
  });
});
