import { AccessTokenVerifier, authenticateRequest } from '@fed/auth';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { ApiError } from '@fed/contracts';
import { type ConversationOwner, ownerOf } from '@fed/conversations';
import { METRICS, type Metrics, OpenStreams } from '@fed/observability';
import { FAST_ROUTES, type FastRoutes, heartbeatsEvery, readJsonBody, responseHeartbeat } from '@fed/server';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { headerValue, sendJson } from '../turns';
import { McpHttpError, invalidParamsError, negotiate, parseMessage } from './mcp-protocol';
import { acceptsEventStream, checkContentType, checkOrigin, presentSdkAccept } from './mcp-request-body';
import { McpServerFactory } from './mcp-server.factory';
import { MCP_PATH, MCP_SCOPE, mcpResourceMetadataUrl, mcpResourceUrl } from './mcp-urls';

/** The comment the MCP SDK's transport writes as its keep-alive. */
const MCP_KEEP_ALIVE = ': keepalive\n\n';

/** `POST /api/v1/mcp`: stateless, a server per request; spec rules the SDK breaks are checked first. */
@Injectable()
export class McpEndpoint implements OnModuleInit {
  private readonly resourceMetadataUrl: string;
  private readonly resource: string;
  private readonly publicOrigin: string;
  private readonly streams: OpenStreams;

  constructor(
    private readonly verifier: AccessTokenVerifier,
    private readonly servers: McpServerFactory,
    @Inject(FAST_ROUTES) private readonly fastRoutes: FastRoutes,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(METRICS) metrics: Metrics,
  ) {
    this.resourceMetadataUrl = mcpResourceMetadataUrl(config);
    this.resource = mcpResourceUrl(config);
    this.publicOrigin = new URL(config.http.publicUrl).origin;
    this.streams = new OpenStreams(metrics, 'mcp');
  }

  onModuleInit(): void {
    // The Marketplace edition has no MCP (document 3): the path stays unrouted.
    if (this.config.edition === 'marketplace') return;
    this.fastRoutes.add('POST', MCP_PATH, (req, res) => this.handle(req, res));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let owner: ConversationOwner;
    let message: JSONRPCMessage;
    try {
      checkOrigin(req, this.publicOrigin);
      owner = ownerOf(await authenticateRequest(this.verifier, req, [MCP_SCOPE], true, this.resource));
      checkContentType(req);
      const limitBytes = this.config.protocols.bodyLimitBytes;
      const body = await readJsonBody(req, limitBytes);
      // The client went away while sending: nobody is left to answer.
      if (body.kind === 'aborted') return void res.destroy();
      message = negotiate(parseMessage(body, limitBytes), headerValue(req, 'mcp-protocol-version'));
    } catch (error) {
      if (error instanceof McpHttpError) {
        return sendJson(res, error.status, error.body(), error.closeConnection ? { Connection: 'close' } : {});
      }
      if (error instanceof ApiError) return this.refuse(res, error);
      throw error;
    }
    const refusal = invalidParamsError(message, this.servers.toolNames);
    if (refusal) return sendJson(res, 200, refusal);
    await this.serve(owner, message, req, res);
  }

  private async serve(
    owner: ConversationOwner,
    message: JSONRPCMessage,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    // A client that does not take an event stream gets one JSON document (and so no progress).
    const eventStream = acceptsEventStream(req);
    presentSdkAccept(req);
    const server = this.servers.create(owner);
    // No session: a client's Mcp-Session-Id is not looked at, and none is issued. Keep-alives are the
    // process's heartbeat table's (0 turns the SDK's own timer off).
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !eventStream,
      keepAliveMs: 0,
    });
    // Closing the server aborts its handlers' signals: a turn's follower stops when the client leaves.
    res.once('close', () => void server.close());
    // Only a request is answered with a stream; notifications and responses get 202 and no body.
    if (eventStream && 'method' in message && 'id' in message) {
      this.streams.track(res);
      this.keepAlive(res);
    }
    await server.connect(transport);
    await transport.handleRequest(req, res, message);
  }

  /** The SDK's keep-alive every interval once its head is out (its writes are not seen here, as with its own timer). */
  private keepAlive(res: ServerResponse): void {
    const heartbeats = heartbeatsEvery(this.config.chat.heartbeatMs);
    const write = responseHeartbeat(res, MCP_KEEP_ALIVE);
    const beat = heartbeats.add(() => res.headersSent && write());
    res.once('close', () => heartbeats.delete(beat));
  }

  /** 401 and 403 as everywhere in the platform, the challenge naming the resource metadata (RFC 9728). */
  private refuse(res: ServerResponse, error: ApiError): void {
    const headers: Record<string, string> = { ...error.headers };
    if (headers['WWW-Authenticate']) {
      headers['WWW-Authenticate'] += `, resource_metadata="${this.resourceMetadataUrl}"`;
    }
    sendJson(res, error.status, error.toEnvelope(), headers);
  }
}
