import { AccessTokenVerifier, authenticateRequest } from '@fed/auth';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { ApiError } from '@fed/contracts';
import { type ConversationOwner, ownerOf } from '@fed/conversations';
import { FAST_ROUTES, type FastRoutes } from '@fed/server';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { McpHttpError, negotiate, parseMessage, invalidParamsError } from './mcp-protocol';
import { checkContentType, checkOrigin, readBody } from './mcp-request-body';
import { McpServerFactory } from './mcp-server.factory';
import { MCP_PATH, MCP_SCOPE, mcpResourceMetadataUrl, publicBaseUrl } from './mcp-urls';

/**
 * `POST /api/v1/mcp` (document 3, MCP), a fast route: stateless streamable HTTP, one SDK server and
 * transport per request, no session ids. What the SDK would answer differently from the spec is
 * checked before it (mcp-protocol.ts): Origin, bearer token and `mcp:all`, Content-Type, the body
 * limit, JSON and JSON-RPC, the protocol version, malformed params and unknown tools.
 */
@Injectable()
export class McpEndpoint implements OnModuleInit {
  private readonly resourceMetadataUrl: string;
  private readonly publicOrigin: string;

  constructor(
    private readonly verifier: AccessTokenVerifier,
    private readonly servers: McpServerFactory,
    @Inject(FAST_ROUTES) private readonly fastRoutes: FastRoutes,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {
    this.resourceMetadataUrl = mcpResourceMetadataUrl(config);
    this.publicOrigin = new URL(publicBaseUrl(config)).origin;
  }

  onModuleInit(): void {
    // The Marketplace edition has no MCP (document 3): the path stays unrouted.
    if (this.config.edition === 'marketplace') return;
    this.fastRoutes.add('POST', MCP_PATH, (req, res) => this.handle(req, res));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let message: JSONRPCMessage;
    let owner: ConversationOwner;
    try {
      checkOrigin(req, this.publicOrigin);
      owner = ownerOf(await authenticateRequest(this.verifier, req, [MCP_SCOPE], true));
      checkContentType(req);
      const body = await readBody(req, this.config.protocols.bodyLimitBytes);
      message = negotiate(parseMessage(body), headerValue(req.headers['mcp-protocol-version']));
    } catch (error) {
      if (error instanceof McpHttpError) return sendJson(res, error.status, error.body(), { Connection: 'close' });
      if (error instanceof ApiError) return this.refuse(res, error);
      throw error;
    }
    const refusal = invalidParamsError(message, this.servers.toolNames);
    if (refusal) return sendJson(res, 200, JSON.stringify(refusal));
    await this.serve(owner, message, req, res);
  }

  private async serve(
    owner: ConversationOwner,
    message: JSONRPCMessage,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const server = this.servers.create(owner);
    // No session: a client's Mcp-Session-Id is not looked at, and none is issued.
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      keepAliveMs: this.config.chat.heartbeatMs,
    });
    // Closing the server aborts its handlers' signals: a turn's follower stops when the client leaves.
    res.once('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, message);
  }

  /** 401 and 403 as everywhere in the platform, the challenge naming the resource metadata (RFC 9728). */
  private refuse(res: ServerResponse, error: ApiError): void {
    const headers: Record<string, string> = { ...error.headers };
    if (headers['WWW-Authenticate']) {
      headers['WWW-Authenticate'] += `, resource_metadata="${this.resourceMetadataUrl}"`;
    }
    sendJson(res, error.status, JSON.stringify(error.toEnvelope()), headers);
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function sendJson(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
  res.end(body);
}
