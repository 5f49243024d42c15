import { type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LATEST_PROTOCOL_VERSION, McpHttpError, invalidParamsError, negotiate, parseMessage } from './mcp-protocol';

const json = (value: unknown) => ({ kind: 'json' as const, value });
const LIMIT = 1024;

function refusal(work: () => unknown): { status: number; code: number; message: string; closeConnection: boolean } {
  try {
    work();
  } catch (error) {
    if (error instanceof McpHttpError) {
      return { status: error.status, code: error.code, message: error.message, closeConnection: error.closeConnection };
    }
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('the MCP message checks before the SDK', () => {
  it('parses one JSON-RPC 2.0 message', () => {
    expect(parseMessage(json({ jsonrpc: '2.0', id: 1, method: 'ping' }), LIMIT)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
    });
  });

  it('answers -32700 for a body that is not JSON, -32600 for JSON that is not one JSON-RPC 2.0 message', () => {
    expect(refusal(() => parseMessage({ kind: 'not_json' }, LIMIT))).toMatchObject({ status: 400, code: -32700 });
    for (const body of [[], [{ jsonrpc: '2.0', id: 1, method: 'ping' }], null, 7, 'text', { id: 1, method: 'ping' }]) {
      expect(refusal(() => parseMessage(json(body), LIMIT))).toMatchObject({ status: 400, code: -32600 });
    }
    expect(refusal(() => parseMessage(json({ jsonrpc: '2.0', id: true, method: 'ping' }), LIMIT))).toMatchObject({
      status: 400,
      code: -32600,
    });
  });

  it('answers -32600 with the reason for a body too deep or too big to parse, 413 closing the connection over the limit', () => {
    const tooComplex = refusal(() => parseMessage({ kind: 'too_complex', reason: 'it nests too deep' }, LIMIT));
    expect(tooComplex).toEqual({
      status: 400,
      code: -32600,
      message: 'Invalid Request: it nests too deep',
      closeConnection: false,
    });
    expect(refusal(() => parseMessage({ kind: 'too_large' }, LIMIT))).toMatchObject({
      status: 413,
      code: -32600,
      closeConnection: true,
    });
  });

  it('answers an initialize with an unsupported revision at the latest one, and leaves supported ones alone', () => {
    const initialize = (protocolVersion: string): JSONRPCMessage => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    });
    expect(negotiate(initialize('2026-07-28'), '2026-07-28')).toMatchObject({
      params: { protocolVersion: LATEST_PROTOCOL_VERSION },
    });
    expect(negotiate(initialize('2024-10-07'), undefined)).toMatchObject({ params: { protocolVersion: '2024-10-07' } });
  });

  it('refuses any other message whose MCP-Protocol-Version is not supported (joined repeats included)', () => {
    const list: JSONRPCMessage = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    expect(negotiate(list, undefined)).toBe(list);
    expect(negotiate(list, '2025-03-26')).toBe(list);
    for (const header of ['2026-07-28', '2025-06-18, 2025-06-18', '']) {
      expect(refusal(() => negotiate(list, header))).toMatchObject({ status: 400, code: -32000 });
    }
    expect(
      refusal(() => negotiate({ jsonrpc: '2.0', method: 'notifications/initialized' }, '2026-07-28')),
    ).toMatchObject({
      status: 400,
      code: -32000,
    });
  });

  it('answers -32602 for malformed params of a served method and for an unknown tool, with the request id', () => {
    const tools = new Set(['execute_chat']);
    const call = (params: unknown): JSONRPCMessage =>
      ({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params }) as JSONRPCMessage;
    expect(invalidParamsError(call({ name: 'execute_chat', arguments: { prompt: 'x' } }), tools)).toBeUndefined();
    expect(invalidParamsError(call({ name: 'nope' }), tools)).toMatchObject({ id: 'a', error: { code: -32602 } });
    expect(invalidParamsError(call({ name: 1 }), tools)).toMatchObject({ id: 'a', error: { code: -32602 } });
    expect(invalidParamsError({ jsonrpc: '2.0', id: 3, method: 'server/discover' }, tools)).toBeUndefined();
    expect(invalidParamsError({ jsonrpc: '2.0', method: 'notifications/initialized' }, tools)).toBeUndefined();
  });
});
