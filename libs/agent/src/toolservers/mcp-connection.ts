import { MCP_APP_MIME_TYPE } from '@fed/contracts';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type * as SdkHttp from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type * as SdkTypes from '@modelcontextprotocol/sdk/types.js';
import { type AnswerLimits, answerLimits, answerTooLarge, boundedFetch } from './tool-server-fetch';
import { UI_MAX_BYTES } from './mcp-ui';
import { type ToolServerNetwork, addressRefusal } from './tool-server-network';

/** Where and how to reach one approved tool server. */
export interface ToolServerEndpoint {
  name: string;
  url: string;
  /** The `Authorization` header value, opened. */
  authHeader?: string;
  timeoutMs: number;
  /** Where it may be connected to (TOOLSERVER_ALLOW_PRIVATE_ADDRESSES), and the connections to it. */
  network: ToolServerNetwork;
}

const CLIENT_INFO = { name: 'federation-agent', version: '1.0.0' };
// Pages of `tools/list` read at most: a server that pages forever is not waited for.
const MAX_TOOL_PAGES = 20;

interface McpClientSdk {
  Client: typeof Client;
  StreamableHTTPClientTransport: typeof SdkHttp.StreamableHTTPClientTransport;
  StreamableHTTPError: typeof SdkHttp.StreamableHTTPError;
  McpError: typeof SdkTypes.McpError;
  ErrorCode: typeof SdkTypes.ErrorCode;
}

// The SDK is heavy and loads on the first connection: few processes that import this module connect.
let loading: Promise<McpClientSdk> | undefined;
/** Set once loaded: until then no error can be one of the SDK's. */
let sdk: McpClientSdk | undefined;

function loadSdk(): Promise<McpClientSdk> {
  // The build turns import() into require(), which loads the SDK's CommonJS build, the one the type
  // imports above describe; TypeScript would type an import() as its ES module build.
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([client, http, types]) => {
    const loaded = {
      Client: client.Client,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      StreamableHTTPError: http.StreamableHTTPError,
      McpError: types.McpError,
      ErrorCode: types.ErrorCode,
    } as unknown as McpClientSdk;
    sdk = loaded;
    return loaded;
  });
  return loading;
}

/** A connected MCP client, every answer bounded by `limits` and every connection checked against the network rule. */
export async function connectToolServer(
  endpoint: ToolServerEndpoint,
  signal?: AbortSignal,
  limits: AnswerLimits = answerLimits(UI_MAX_BYTES),
): Promise<Client> {
  const { Client, StreamableHTTPClientTransport, McpError, ErrorCode } = await loadSdk();
  // An SSE answer cut off fails its requests at once, with the cut-off as the error's data (see answerTooLarge).
  const failRequests = (ids: readonly (string | number)[], error: Error) => {
    for (const id of ids) {
      transport.onmessage?.({
        jsonrpc: '2.0',
        id,
        error: { code: ErrorCode.InternalError, message: error.message, data: error },
      });
    }
  };
  const transport: SdkHttp.StreamableHTTPClientTransport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
    fetch: boundedFetch({ dispatcher: endpoint.network.dispatcher, limits, failRequests }),
    requestInit: endpoint.authHeader ? { headers: { authorization: endpoint.authHeader } } : undefined,
    // A call is answered within the server's timeout or fails; no background reconnection.
    reconnectionOptions: {
      maxRetries: 0,
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 1,
    },
  });
  const client = new Client(CLIENT_INFO, {
    // The MCP Apps extension: servers that adapt to it offer their `ui://` resources.
    capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [MCP_APP_MIME_TYPE] } } },
  });
  // The SDK bounds only `initialize` by `timeout`: the `notifications/initialized` POST after it waits as
  // long as the server does. The whole handshake is bounded here; closing the transport aborts its fetches.
  const deadline = AbortSignal.timeout(endpoint.timeoutMs);
  const handshake = signal ? AbortSignal.any([signal, deadline]) : deadline;
  const abort = () => void transport.close().catch(() => undefined);
  handshake.addEventListener('abort', abort, { once: true });
  try {
    await client.connect(transport, { signal: handshake, timeout: endpoint.timeoutMs });
    handshake.throwIfAborted();
  } catch (error) {
    await client.close().catch(() => undefined);
    if (deadline.aborted && !signal?.aborted) throw new McpError(ErrorCode.RequestTimeout, 'connecting timed out');
    throw signal?.aborted ? signal.reason : error;
  } finally {
    handshake.removeEventListener('abort', abort);
  }
  return client;
}

/** Every tool the server lists (following `nextCursor`). */
export async function listAllTools(
  client: Client,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<SdkTypes.Tool[]> {
  const tools: SdkTypes.Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const result = await client.listTools(cursor ? { cursor } : undefined, {
      timeout: options.timeoutMs,
      signal: options.signal,
    });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/** A failure that may pass (server down, slow, connection broken), unlike a JSON-RPC error or a 4xx. */
export function isTransientFailure(error: unknown): boolean {
  const { StreamableHTTPError, McpError, ErrorCode } = sdk ?? {};
  // Too much, or an address not allowed: asking again gets the same.
  if (answerTooLarge(error) || addressRefusal(error)) return false;
  if (StreamableHTTPError && error instanceof StreamableHTTPError) {
    return error.code === undefined || error.code >= 500 || error.code === 408 || error.code === 429;
  }
  if (McpError && ErrorCode && error instanceof McpError) {
    return error.code === ErrorCode.RequestTimeout || error.code === ErrorCode.ConnectionClosed;
  }
  // fetch: refused, reset, DNS; timers and aborts.
  return error instanceof TypeError || (error instanceof Error && /abort|timeout/i.test(error.name));
}

/** Why a call to the server failed, in words safe for a task, a log and the model (no secrets, bounded). */
export function failureText(error: unknown): string {
  const { StreamableHTTPError, McpError, ErrorCode } = sdk ?? {};
  let text: string;
  const ours = answerTooLarge(error) ?? addressRefusal(error);
  if (ours) text = ours.message;
  else if (StreamableHTTPError && error instanceof StreamableHTTPError) text = `HTTP ${error.code ?? 'error'}`;
  else if (McpError && error instanceof McpError && error.code === ErrorCode?.RequestTimeout)
    text = 'it did not answer in time';
  else if (McpError && error instanceof McpError) text = error.message;
  else if (error instanceof TypeError) {
    const cause = (error as { cause?: { code?: string } }).cause;
    text = `it could not be reached${cause?.code ? ` (${cause.code})` : ''}`;
  } else if (error instanceof Error) text = error.message;
  else text = String(error);
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}
