import { isStorableText } from '@fed/contracts';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { type ToolServerEndpoint, connectToolServer, failureText, listAllTools } from './mcp-connection';
import { toolUiResourceUri, uiMeta } from './mcp-ui';
import { type RecordedTool, ToolServerEntity } from './tool-server.entity';
import { type ToolServerRepository } from './tool-server.repository';
import { agentToolName, allowedTools, authHeaderValue, serverName, serverUrl, timeoutMs } from './tool-server.rules';
import { ToolServerNetwork, addressRefusal } from './tool-server-network';
import { type ToolServerSecrets } from './tool-server-secrets';
import { endpointOf } from './tool-server-turn-tools';
import { ToolServersError } from './tool-servers.errors';

export interface AddToolServer {
  name: string;
  url: string;
  authHeader?: string;
  /** `tool1,tool2`. */
  allow: string;
  timeoutSeconds?: string;
}

/** A server as an operator sees it: never its auth header, only whether it has one. */
export interface ToolServerItem {
  name: string;
  url: string;
  auth: 'set' | 'none';
  allowedTools: string[];
  /** The allowed tools the server listed, as the agent calls them. */
  agentTools: string[];
  enabled: boolean;
  timeoutMs: number;
  updatedAt: Date;
}

export interface RefreshReport {
  item: ToolServerItem;
  /** Allowed tools the server no longer lists: not offered until it does again. */
  missing: string[];
}

const DESCRIPTION_MAX = 4000;

/** Approving, listing, refreshing and removing external MCP tool servers (platformctl toolservers). */
export class ToolServersAdminService {
  private readonly now: () => Date;
  private readonly network: ToolServerNetwork;

  constructor(
    private readonly repository: ToolServerRepository,
    private readonly secrets: ToolServerSecrets | undefined,
    /** `network`: where servers may be (TOOLSERVER_ALLOW_PRIVATE_ADDRESSES); public addresses only by default. */
    options: { now?: () => Date; network?: ToolServerNetwork } = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.network = options.network ?? ToolServerNetwork.of(false);
  }

  /** Connects, lists the server's tools and records the allowed ones; every allowed tool must exist. */
  async add(input: AddToolServer): Promise<ToolServerItem> {
    const name = serverName(input.name);
    const url = serverUrl(input.url, this.network.allowPrivateAddresses);
    const allowed = allowedTools(input.allow);
    const timeout = timeoutMs(input.timeoutSeconds);
    const authHeader = input.authHeader === undefined ? undefined : authHeaderValue(input.authHeader);
    if (authHeader !== undefined && !this.secrets) {
      throw new ToolServersError(
        'no_secret_key',
        'an auth header is stored encrypted: set TOOLSERVER_SECRET_KEY (the value agent-runtime and chat-service have)',
      );
    }
    if (await this.repository.findByName(name)) {
      throw new ToolServersError('server_exists', `a tool server named ${name} exists already`);
    }
    const listed = await this.listTools({ name, url, authHeader, timeoutMs: timeout, network: this.network });
    const unknown = allowed.filter((tool) => !listed.has(tool));
    if (unknown.length > 0) {
      throw new ToolServersError(
        'unknown_tool',
        `${name} offers no tool named ${unknown.join(', ')} (it offers: ${[...listed.keys()].join(', ') || 'none'})`,
      );
    }
    const id = randomUUID();
    const now = this.now();
    const server = Object.assign(new ToolServerEntity(), {
      id,
      name,
      url,
      authHeader: authHeader === undefined ? null : await (this.secrets as ToolServerSecrets).seal(authHeader, id),
      allowedTools: allowed,
      tools: allowed.map((tool) => recorded(listed.get(tool) as Tool)),
      enabled: true,
      timeoutMs: timeout,
      createdAt: now,
      updatedAt: now,
    });
    // The unique name decides a race between two adds.
    if (!(await this.repository.insert(server))) {
      throw new ToolServersError('server_exists', `a tool server named ${name} exists already`);
    }
    return toItem(server);
  }

  async list(): Promise<ToolServerItem[]> {
    return (await this.repository.all()).map(toItem);
  }

  async remove(name: string): Promise<void> {
    if (!(await this.repository.deleteByName(name))) throw notFound(name);
  }

  /** Lists the server's tools again and records the allowed ones it offers now. */
  async refresh(name: string): Promise<RefreshReport> {
    const server = await this.repository.findByName(name);
    if (!server) throw notFound(name);
    let endpoint: ToolServerEndpoint;
    try {
      endpoint = await endpointOf(server, this.secrets, this.network);
    } catch (error) {
      throw new ToolServersError('no_secret_key', `${name}: ${(error as Error).message}`);
    }
    const listed = await this.listTools(endpoint);
    const tools = server.allowedTools
      .filter((tool) => listed.has(tool))
      .map((tool) => recorded(listed.get(tool) as Tool));
    const updatedAt = this.now();
    if (!(await this.repository.recordTools(server.id, tools, updatedAt))) throw notFound(name);
    return {
      item: toItem(Object.assign(server, { tools, updatedAt })),
      missing: server.allowedTools.filter((tool) => !listed.has(tool)),
    };
  }

  private async listTools(endpoint: ToolServerEndpoint): Promise<Map<string, Tool>> {
    const signal = AbortSignal.timeout(endpoint.timeoutMs * 2);
    let client;
    try {
      client = await connectToolServer(endpoint, signal);
      const tools = await listAllTools(client, { timeoutMs: endpoint.timeoutMs, signal });
      return new Map(tools.map((tool) => [tool.name, tool]));
    } catch (error) {
      // A name resolving to a loopback or private address is refused where it is connected to.
      const refused = addressRefusal(error);
      if (refused) throw new ToolServersError('address_not_allowed', `${endpoint.url}: ${refused.message}`);
      throw new ToolServersError(
        'server_unreachable',
        `${endpoint.url} did not answer as an MCP server: ${failureText(error)}`,
      );
    } finally {
      await client?.close().catch(() => undefined);
    }
  }
}

/** Every string (keys included) of a JSON value is storable text: PostgreSQL's jsonb takes no NUL or lone surrogate. */
function isStorableJson(value: unknown): boolean {
  if (typeof value === 'string') return isStorableText(value);
  if (Array.isArray(value)) return value.every(isStorableJson);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).every(([key, item]) => isStorableText(key) && isStorableJson(item));
  }
  return true;
}

function recorded(tool: Tool): RecordedTool {
  if (!isStorableJson({ description: tool.description, inputSchema: tool.inputSchema, meta: tool._meta })) {
    throw new ToolServersError(
      'unstorable_tool',
      `the server describes ${tool.name} with text that cannot be stored (NUL or unpaired surrogate characters)`,
    );
  }
  const uiResourceUri = toolUiResourceUri(tool._meta);
  const ui = uiMeta(tool._meta);
  if (ui) delete ui.resourceUri;
  const description = tool.description ?? '';
  return {
    name: tool.name,
    description: description.length > DESCRIPTION_MAX ? `${description.slice(0, DESCRIPTION_MAX - 1)}…` : description,
    inputSchema: tool.inputSchema as Record<string, unknown>,
    ...(uiResourceUri ? { uiResourceUri } : {}),
    ...(ui && Object.keys(ui).length > 0 ? { ui } : {}),
  };
}

function toItem(server: ToolServerEntity): ToolServerItem {
  return {
    name: server.name,
    url: server.url,
    auth: server.authHeader ? 'set' : 'none',
    allowedTools: server.allowedTools,
    agentTools: server.tools
      .filter((tool) => server.allowedTools.includes(tool.name))
      .map((tool) => agentToolName(server.name, tool.name) ?? `${tool.name} (name too long: not offered)`),
    enabled: server.enabled,
    timeoutMs: server.timeoutMs,
    updatedAt: server.updatedAt,
  };
}

function notFound(name: string): ToolServersError {
  return new ToolServersError('server_not_found', `no tool server named ${JSON.stringify(name.slice(0, 64))}`);
}
