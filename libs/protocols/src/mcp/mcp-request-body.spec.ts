import { type IncomingMessage } from 'node:http';
import { acceptsEventStream, presentSdkAccept } from './mcp-request-body';

const requestWith = (rawHeaders: string[]) => {
  const headers: Record<string, string> = {};
  for (let i = 0; i < rawHeaders.length; i += 2)
    headers[(rawHeaders[i] as string).toLowerCase()] = rawHeaders[i + 1] as string;
  return { headers, rawHeaders } as unknown as IncomingMessage;
};

describe('Accept of the MCP endpoint', () => {
  it('takes an event stream only when the client names text/event-stream without q=0', () => {
    for (const accept of ['application/json, text/event-stream', 'text/event-stream', 'TEXT/EVENT-STREAM;q=0.5']) {
      expect(acceptsEventStream(requestWith(['Accept', accept]))).toBe(true);
    }
    for (const accept of ['application/json', '*/*', 'text/event-stream;q=0', 'text/event-stream-x', '']) {
      expect(acceptsEventStream(requestWith(['Accept', accept]))).toBe(false);
    }
    expect(acceptsEventStream(requestWith([]))).toBe(false);
  });

  it('shows the SDK the Accept it requires, in the parsed and the raw headers, keeping the others', () => {
    const req = requestWith(['Host', 'h', 'accept', 'application/json', 'Accept', 'text/html']);
    presentSdkAccept(req);
    expect(req.headers.accept).toBe('application/json, text/event-stream');
    expect(req.rawHeaders).toEqual(['Host', 'h', 'Accept', 'application/json, text/event-stream']);
  });
});
