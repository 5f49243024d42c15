import { contentChunk, finalChunk, roleChunk } from './chat-chunk';
import { SSE_CONNECTED, SSE_DONE, SSE_HEARTBEAT, encodeSseComment, encodeSseEvent } from './sse-encoder';

const at = new Date('2026-11-22T10:00:00.000Z');

describe('SSE encoding of the chat stream', () => {
  it('writes the connected and heartbeat comments and the DONE line exactly', () => {
    expect(SSE_CONNECTED).toBe(': connected\n\n');
    expect(SSE_HEARTBEAT).toBe(': heartbeat\n\n');
    expect(SSE_DONE).toBe('data: [DONE]\n\n');
    expect(encodeSseComment('heartbeat')).toBe(SSE_HEARTBEAT);
  });

  it('writes a chunk as one data line of JSON with its id before it', () => {
    const chunk = contentChunk('agent', { content: 'line one\nline two' }, at);
    const frame = encodeSseEvent(chunk, { id: '1700000000000-0' });
    expect(frame).toBe(`id: 1700000000000-0\ndata: ${JSON.stringify(chunk)}\n\n`);
    expect(frame.split('\n').filter((l) => l.startsWith('data: '))).toHaveLength(1);
    expect(JSON.parse(frame.split('\n')[1]!.slice(6))).toEqual(chunk);
  });

  it('splits a multi-line string payload into one data line per line', () => {
    expect(encodeSseEvent('a\nb\r\nc', { event: 'message_start' })).toBe(
      'event: message_start\ndata: a\ndata: b\ndata: c\n\n',
    );
  });

  it('refuses an id or comment that would break the framing', () => {
    expect(() => encodeSseEvent({}, { id: '1\ndata: injected' })).toThrow(RangeError);
    expect(() => encodeSseEvent({}, { id: 'a\0b' })).toThrow(RangeError);
    expect(() => encodeSseComment('x\n\ndata: injected')).toThrow(RangeError);
  });

  it('builds the role chunk with messageInfo and a null finishReason', () => {
    const chunk = roleChunk('agent', 'c-1', 'm-1', at);
    expect(chunk).toEqual({
      createdAt: '2026-11-22T10:00:00.000Z',
      model: 'agent',
      choices: [
        {
          index: 0,
          delta: { role: 'assistant', messageInfo: { conversationId: 'c-1', messageId: 'm-1' } },
          finishReason: null,
        },
      ],
    });
  });

  it('builds a final chunk with finishReason and optional status and deliverables', () => {
    const done = finalChunk('agent', 'stop', {}, at);
    expect(done.choices).toHaveLength(1);
    expect(done.choices[0]).toEqual({ index: 0, delta: {}, finishReason: 'stop' });
    const failed = finalChunk('agent', 'error', { status: 'unfinished' }, at);
    expect(failed.choices[0].status).toBe('unfinished');
    expect(failed.choices[0].finishReason).toBe('error');
  });
});
