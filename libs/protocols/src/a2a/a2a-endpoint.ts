import { type AgentCard, formatSSEErrorEvent } from '@a2a-js/sdk';
import { isLegacyJsonRpcMethod, isV1JsonRpcMethod } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { type A2ARequestHandler, JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import { type AccessTokenVerifier, authenticateRequest } from '@fed/auth';
import { ApiError, SSE_HEADERS, SSE_HEARTBEAT } from '@fed/contracts';
import { type ConversationOwner, ownerOf, writeOrWait } from '@fed/conversations';
import { type OpenStreams } from '@fed/observability';
import { heartbeatsEvery, readJsonBody, takesHeartbeat } from '@fed/server';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { headerValue, sendJson } from '../turns';
import { type A2aCall, callContext, parseEventId } from './a2a-call';
import { A2A_SCOPE, agentCardJson, wantsLegacyCard } from './agent-card';
import { normaliseParams } from './turn-input';

export interface A2aEndpointSettings {
  bodyLimitBytes: number;
  heartbeatMs: number;
  /** The A2A endpoint's resource indicator (RFC 8707): a token issued for it is taken here, besides `broker` ones. */
  resource: string;
}

type RequestId = string | number | null;

interface RpcError {
  jsonrpc: '2.0';
  id: RequestId;
  error: { code: number; message: string };
}

interface RpcRequest extends Record<string, unknown> {
  jsonrpc: '2.0';
  id?: RequestId;
  method: string;
  params?: unknown;
}

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;

// Major.Minor, and any patch (A2A 1.0, 3.6: patch numbers are not considered when negotiating).
const SUPPORTED_VERSION = /^(0\.3|1\.0)(\.[0-9]{1,4})?$/;
const JSON_TYPE = /^application\/(json|a2a\+json)\s*(;|$)/i;
const STREAMING_METHODS = new Set(['message/stream', 'tasks/resubscribe', 'SendStreamingMessage', 'SubscribeToTask']);

const rpcError = (id: RequestId, code: number, message: string): RpcError => ({
  jsonrpc: '2.0',
  id,
  error: { code, message },
});

/** `POST /api/v1/a2a` and the agent card as fast routes: checked here, then passed to the generation's SDK handler. */
export class A2aEndpoint {
  private readonly current: JsonRpcTransportHandler;
  private readonly legacy: LegacyJsonRpcTransportHandler;
  private readonly cards: { current: Buffer; legacy: Buffer };

  constructor(
    handler: A2ARequestHandler,
    card: AgentCard,
    private readonly verifier: AccessTokenVerifier,
    private readonly settings: A2aEndpointSettings,
    private readonly shutdown: AbortSignal,
    /** `sse_streams_active{kind="a2a"}`: a stream counts from its head until the response closes. */
    private readonly streams: OpenStreams,
  ) {
    this.current = new JsonRpcTransportHandler(handler);
    this.legacy = new LegacyJsonRpcTransportHandler(handler);
    this.cards = {
      current: Buffer.from(JSON.stringify(agentCardJson(card, false))),
      legacy: Buffer.from(JSON.stringify(agentCardJson(card, true))),
    };
  }

  /** The public agent card: v0.3 (with the v1.0 interfaces) unless `A2A-Version` asks for 1.x. */
  async serveCard(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = wantsLegacyCard(headerValue(req, 'a2a-version')) ? this.cards.legacy : this.cards.current;
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': body.length,
      'Cache-Control': 'public, max-age=300',
      Vary: 'A2A-Version',
      'Access-Control-Allow-Origin': '*',
    });
    res.end(body);
  }

  async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let owner: ConversationOwner;
    try {
      owner = ownerOf(await authenticateRequest(this.verifier, req, [A2A_SCOPE], true, this.settings.resource));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      req.resume();
      return sendJson(res, error.status, error.toEnvelope(), error.headers);
    }
    // 415 rather than -32600: the body is not read at all, so not as JSON-RPC either.
    if (!JSON_TYPE.test(headerValue(req, 'content-type') ?? '')) {
      req.resume();
      return sendJson(res, 415, rpcError(null, INVALID_REQUEST, 'Content-Type must be application/json'));
    }
    const body = await readJsonBody(req, this.settings.bodyLimitBytes);
    switch (body.kind) {
      case 'aborted':
        // The client went away mid-body: nobody to answer.
        res.destroy();
        return;
      case 'too_large':
        return sendJson(
          res,
          413,
          rpcError(null, INVALID_REQUEST, `the request body is larger than ${this.settings.bodyLimitBytes} bytes`),
          { Connection: 'close' },
        );
      case 'not_json':
        return sendJson(res, 200, rpcError(null, PARSE_ERROR, 'parse error: the body is not valid JSON'));
      case 'too_complex':
        return sendJson(res, 200, rpcError(null, INVALID_REQUEST, body.reason));
      case 'json':
        break;
    }
    const request = requestOf(body.value);
    if ('error' in request) return sendJson(res, 200, request);
    const id = request.id ?? null;
    // A2A 1.0, 3.6.2: an absent or empty A2A-Version is 0.3 (the 0.3 clients never sent one).
    const version = headerValue(req, 'a2a-version')?.trim() || '0.3';
    const generation = SUPPORTED_VERSION.exec(version)?.[1];
    if (generation === undefined) {
      return sendJson(res, 200, rpcError(id, INVALID_REQUEST, 'the A2A-Version header must be 0.3 or 1.0'));
    }
    const lastEventId = headerValue(req, 'last-event-id');
    const position = lastEventId === undefined ? undefined : parseEventId(lastEventId);
    if (lastEventId !== undefined && !position) {
      return sendJson(res, 200, rpcError(id, INVALID_REQUEST, 'Last-Event-ID must be an id of this stream'));
    }
    const stop = new AbortController();
    const onGone = () => stop.abort();
    res.once('close', onGone);
    this.shutdown.addEventListener('abort', onGone, { once: true });
    // A shutdown that began before the listener: stop at once, as it would have stopped this call.
    if (this.shutdown.aborted) stop.abort();
    try {
      const call: A2aCall = {
        owner,
        signal: stop.signal,
        ...(position ? { lastEventId: position } : {}),
      };
      await this.dispatch(res, request, callContext(call, generation), call);
    } finally {
      res.off('close', onGone);
      this.shutdown.removeEventListener('abort', onGone);
    }
  }

  private async dispatch(
    res: ServerResponse,
    request: RpcRequest,
    context: ReturnType<typeof callContext>,
    call: A2aCall,
  ): Promise<void> {
    const legacy = isLegacyJsonRpcMethod(request.method);
    const normalised =
      'params' in request ? { ...request, params: normaliseParams(request.method, request.params) } : request;
    const handled = (legacy ? this.legacy : this.current).handle(normalised, context);
    if (!STREAMING_METHODS.has(request.method)) return this.answer(res, handled);
    const result = await handled;
    if (!isAsyncIterable(result)) return sendJson(res, 200, result);
    const toError = (error: unknown) =>
      legacy
        ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error)
        : JsonRpcTransportHandler.mapToJSONRPCError(error);
    await this.stream(res, result, call, (error) => ({
      jsonrpc: '2.0',
      id: request.id ?? null,
      error: toError(error),
    }));
  }

  /** One JSON document; while it is not ready, 200 and a newline every heartbeat (only whitespace precedes it). */
  private async answer(res: ServerResponse, handled: Promise<unknown>): Promise<void> {
    const heartbeats = heartbeatsEvery(this.settings.heartbeatMs);
    const beat = heartbeats.add(() => {
      if (!takesHeartbeat(res)) return false;
      if (!res.headersSent) res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
      res.write('\n');
      return true;
    });
    let result: unknown;
    try {
      result = await handled;
    } finally {
      heartbeats.delete(beat);
    }
    if (!res.headersSent) return sendJson(res, 200, result);
    res.end(JSON.stringify(result));
  }

  /** Server-sent events: `id:` (A2aCall.eventId) and `data:` per event, `: heartbeat` after silence. */
  private async stream(
    res: ServerResponse,
    events: AsyncIterable<unknown>,
    call: A2aCall,
    errorOf: (error: unknown) => unknown,
  ): Promise<void> {
    const iterator = events[Symbol.asyncIterator]();
    const open = () => {
      if (res.headersSent) return;
      res.writeHead(200, SSE_HEADERS);
      this.streams.track(res);
    };
    const heartbeats = heartbeatsEvery(this.settings.heartbeatMs);
    const beat = heartbeats.add(() => {
      if (call.signal.aborted || !takesHeartbeat(res)) return false;
      open();
      res.write(SSE_HEARTBEAT);
      return true;
    });
    try {
      for (;;) {
        // The turn's events follow call.signal: an aborted call ends them (no race needed here).
        const step = await iterator.next();
        if (step.done || call.signal.aborted) break;
        open();
        const id = call.eventId;
        call.eventId = undefined;
        await writeOrWait(res, `${id ? `id: ${id}\n` : ''}data: ${JSON.stringify(step.value)}\n\n`, call.signal);
        beat.lastWrite = Date.now();
      }
    } catch (error) {
      if (!res.headersSent) return sendJson(res, 200, errorOf(error));
      if (!call.signal.aborted) res.write(formatSSEErrorEvent(errorOf(error)));
    } finally {
      heartbeats.delete(beat);
      if (!res.writableEnded) res.end();
      await iterator.return?.();
    }
  }
}

/** The JSON-RPC request, or the error answering it: -32600 not a request, -32601 unknown method. */
function requestOf(value: unknown): RpcRequest | RpcError {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return rpcError(null, INVALID_REQUEST, 'the body must be one JSON-RPC request object (batches are not supported)');
  }
  const request = value as Record<string, unknown>;
  const id = request.id;
  const validId = id === undefined || id === null || typeof id === 'string' || Number.isSafeInteger(id);
  const answerId = validId ? ((id ?? null) as RequestId) : null;
  if (request.jsonrpc !== '2.0') return rpcError(answerId, INVALID_REQUEST, 'jsonrpc must be "2.0"');
  if (!validId) return rpcError(null, INVALID_REQUEST, 'id must be a string, an integer or null');
  if (typeof request.method !== 'string' || request.method === '') {
    return rpcError(answerId, INVALID_REQUEST, 'method must be a non-empty string');
  }
  if (!isLegacyJsonRpcMethod(request.method) && !isV1JsonRpcMethod(request.method)) {
    return rpcError(answerId, METHOD_NOT_FOUND, `method not found: ${request.method.slice(0, 100)}`);
  }
  return request as unknown as RpcRequest;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as AsyncIterable<unknown> | null)?.[Symbol.asyncIterator] === 'function';
}
