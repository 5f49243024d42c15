import { isPrintableLine, isStorableText } from '@fed/contracts';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { type ToolServerEndpoint, connectToolServer, failureText, listAllTools } from './mcp-connection';
import { toolUiResourceUri, uiMeta } from './mcp-ui';
import { type OfferedTool, type RecordedTool, ToolServerEntity } from './tool-server.entity';
import { type ToolListing, type ToolServerRepository } from './tool-server.repository';
import {
  agentToolName,
  allowedTools,
  authHeaderValue,
  isServerName,
  serverName,
  serverUrl,
  timeoutMs,
} from './tool-server.rules';
import { ToolServerNetwork, addressRefusal } from './tool-server-network';
import { type ToolServerSecrets } from './tool-server-secrets';
import { endpointOf } from './tool-server-turn-tools';
import { ToolServersError } from './tool-servers.errors';

export interface AddToolServer {
  name: string;
  url: string;
  authHeader?: string;
  /** `tool1,tool2` as the command line gives it, or the names as a JSON body does. */
  allow: string | readonly string[];
  /** Digits (the command line) or an integer (a JSON body). */
  timeoutSeconds?: string | number;
}

/** What a change gives; an absent field keeps its value, `authHeader: null` removes the header. */
export interface ToolServerUpdate {
  url?: string;
  authHeader?: string | null;
  allow?: string | readonly string[];
  timeoutSeconds?: string | number;
}

/** `failing`: the last ask for its tools failed (`refreshError`); `disabled`: not offered to the agent. */
export type ToolServerState = 'ready' | 'failing' | 'disabled';

/** A tool of the server as an operator chooses among them. */
export interface ToolServerTool {
  name: string;
  description: string;
  allowed: boolean;
  /** In the server's last listing; an allowed tool it no longer lists is not offered to the agent. */
  offered: boolean;
  /** `<server>__<tool>`, or null when that is not a valid agent tool name (the tool is not offered). */
  agentToolName: string | null;
}

/** A server as an operator sees it: never its auth header, only whether it has one. */
export interface ToolServerItem {
  name: string;
  url: string;
  auth: 'set' | 'none';
  allowedTools: string[];
  /** The allowed tools the server listed, as the agent calls them. */
  agentTools: string[];
  /** Every tool of the last listing, then the allowed ones it lacked. */
  tools: ToolServerTool[];
  enabled: boolean;
  state: ToolServerState;
  timeoutMs: number;
  refreshedAt: Date | null;
  refreshError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ToolServerPage {
  items: ToolServerItem[];
  total: number;
}

export interface RefreshReport {
  item: ToolServerItem;
  /** Allowed tools the server no longer lists: not offered until it does again. */
  missing: string[];
}

const DESCRIPTION_MAX = 4000;
/** Tools of one listing kept for the operator to choose from. */
const OFFERED_MAX = 1000;

/**
 * Approving, listing, changing, refreshing and removing external MCP tool servers: platformctl toolservers and
 * `/api/v1/admin/tool-servers` call the same methods.
 */
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
    if (authHeader !== undefined) this.requireKey();
    if (await this.repository.findByName(name)) throw exists(name);
    const listed = await this.listTools({ name, url, authHeader, timeoutMs: timeout, network: this.network });
    requireListed(name, allowed, listed);
    const id = randomUUID();
    const now = this.now();
    const server = Object.assign(new ToolServerEntity(), {
      id,
      name,
      url,
      authHeader: authHeader === undefined ? null : await (this.secrets as ToolServerSecrets).seal(authHeader, id),
      allowedTools: allowed,
      ...listingOf(allowed, listed, now),
      refreshError: null,
      enabled: true,
      timeoutMs: timeout,
      createdAt: now,
    });
    // The unique name decides a race between two adds.
    if (!(await this.repository.insert(server))) throw exists(name);
    return toItem(server);
  }

  async list(): Promise<ToolServerItem[]> {
    return (await this.repository.all()).map(toItem);
  }

  async page(params: { offset: number; limit: number }): Promise<ToolServerPage> {
    const [servers, total] = await this.repository.page(params.offset, params.limit);
    return { items: servers.map(toItem), total };
  }

  async get(name: string): Promise<ToolServerItem> {
    return toItem(await this.found(name));
  }

  /**
   * Changes what `add` took (never the name: the agent's tool names and UI resources carry it), asking the server
   * for its tools with the new settings first: nothing changes unless it answers and lists every allowed tool.
   */
  async update(name: string, changes: ToolServerUpdate): Promise<ToolServerItem> {
    if (Object.values(changes).every((value) => value === undefined)) {
      throw new ToolServersError(
        'nothing_to_update',
        'give at least one of the URL, the auth header, the allowed tools or the timeout',
      );
    }
    const server = await this.found(name);
    const url = changes.url === undefined ? server.url : serverUrl(changes.url, this.network.allowPrivateAddresses);
    const allowed = changes.allow === undefined ? server.allowedTools : allowedTools(changes.allow);
    const timeout = changes.timeoutSeconds === undefined ? server.timeoutMs : timeoutMs(changes.timeoutSeconds);
    const newHeader =
      changes.authHeader === undefined || changes.authHeader === null
        ? changes.authHeader
        : authHeaderValue(changes.authHeader);
    if (typeof newHeader === 'string') this.requireKey();
    // The stored header was given for the old origin: another origin gets it only when it is given again.
    if (newHeader === undefined && server.authHeader && new URL(url).origin !== new URL(server.url).origin) {
      throw new ToolServersError(
        'auth_header_required',
        `${name} has an auth header for ${new URL(server.url).origin}: give it again for the new origin, or remove it`,
      );
    }
    const authHeader = newHeader === undefined ? (await this.endpoint(server)).authHeader : (newHeader ?? undefined);
    const listed = await this.listTools({ name, url, authHeader, timeoutMs: timeout, network: this.network });
    requireListed(name, allowed, listed);
    const now = this.now();
    const changed = {
      url,
      authHeader:
        newHeader === undefined
          ? server.authHeader
          : newHeader === null
            ? null
            : await (this.secrets as ToolServerSecrets).seal(newHeader, server.id),
      allowedTools: allowed,
      timeoutMs: timeout,
      ...listingOf(allowed, listed, now),
    };
    if (!(await this.repository.change(server.id, changed))) throw notFound(name);
    return toItem(Object.assign(server, changed, { refreshError: null }));
  }

  async remove(name: string): Promise<void> {
    if (!isServerName(name) || !(await this.repository.deleteByName(name))) throw notFound(name);
  }

  /**
   * Lists the server's tools again and records the allowed ones it offers now. A server that fails to answer keeps
   * its recorded tools; the failure is recorded (the item's `failing` state) and thrown.
   */
  async refresh(name: string): Promise<RefreshReport> {
    const server = await this.found(name);
    const endpoint = await this.endpoint(server);
    const now = this.now();
    let listing: ToolListing;
    try {
      listing = listingOf(server.allowedTools, await this.listTools(endpoint), now);
    } catch (error) {
      if (error instanceof ToolServersError) {
        await this.repository.recordRefreshFailure(server.id, now, error.message);
      }
      throw error;
    }
    if (!(await this.repository.recordListing(server.id, listing))) throw notFound(name);
    const listed = new Set(listing.offeredTools.map((tool) => tool.name));
    return {
      item: toItem(Object.assign(server, listing, { refreshError: null })),
      missing: server.allowedTools.filter((tool) => !listed.has(tool)),
    };
  }

  // A name of the wrong shape names no server; checked here so it never reaches SQL (a NUL would fail there).
  private async found(name: string): Promise<ToolServerEntity> {
    const server = isServerName(name) ? await this.repository.findByName(name) : null;
    if (!server) throw notFound(name);
    return server;
  }

  private requireKey(): void {
    if (!this.secrets) {
      throw new ToolServersError(
        'no_secret_key',
        'an auth header is stored encrypted: set TOOLSERVER_SECRET_KEY (the value agent-runtime and chat-service have)',
      );
    }
  }

  /** The server as recorded, its auth header opened: a key that cannot open it is this app's problem, not the server's. */
  private async endpoint(server: ToolServerEntity): Promise<ToolServerEndpoint> {
    try {
      return await endpointOf(server, this.secrets, this.network);
    } catch (error) {
      throw new ToolServersError('no_secret_key', `${server.name}: ${(error as Error).message}`);
    }
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

function requireListed(name: string, allowed: readonly string[], listed: Map<string, Tool>): void {
  const unknown = allowed.filter((tool) => !listed.has(tool));
  if (unknown.length > 0) {
    throw new ToolServersError(
      'unknown_tool',
      `${name} offers no tool named ${unknown.join(', ')} (it offers: ${[...listed.keys()].join(', ') || 'none'})`,
    );
  }
}

/** The allowed tools with their schemas (each must be storable), and every tool by name and description. */
function listingOf(allowed: readonly string[], listed: Map<string, Tool>, now: Date): ToolListing {
  const tools = allowed.filter((tool) => listed.has(tool)).map((tool) => recorded(listed.get(tool) as Tool));
  // A tool that is not allowed is only shown: text that cannot be shown is left out rather than refused.
  const offeredTools: OfferedTool[] = [];
  for (const tool of listed.values()) {
    if (offeredTools.length === OFFERED_MAX) break;
    if (typeof tool.name !== 'string' || tool.name.length > 128 || !isPrintableLine(tool.name)) continue;
    const description =
      typeof tool.description === 'string' && isStorableText(tool.description) ? tool.description : '';
    offeredTools.push({ name: tool.name, description: bounded(description) });
  }
  return { tools, offeredTools, refreshedAt: now, updatedAt: now };
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

function bounded(description: string): string {
  return description.length > DESCRIPTION_MAX ? `${description.slice(0, DESCRIPTION_MAX - 1)}…` : description;
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
  return {
    name: tool.name,
    description: bounded(tool.description ?? ''),
    inputSchema: tool.inputSchema as Record<string, unknown>,
    ...(uiResourceUri ? { uiResourceUri } : {}),
    ...(ui && Object.keys(ui).length > 0 ? { ui } : {}),
  };
}

function toolsOf(server: ToolServerEntity): ToolServerTool[] {
  const offered = new Set(server.offeredTools.map((tool) => tool.name));
  const allowedAndListed = new Set(server.tools.map((tool) => tool.name));
  const tool = (name: string, description: string, isOffered: boolean): ToolServerTool => ({
    name,
    description,
    allowed: server.allowedTools.includes(name),
    offered: isOffered,
    agentToolName: agentToolName(server.name, name) ?? null,
  });
  return [
    ...server.offeredTools.map((listed) => tool(listed.name, listed.description, true)),
    // Rows listed before offered tools were kept: their recorded allowed tools were offered then.
    ...server.tools
      .filter((recordedTool) => !offered.has(recordedTool.name))
      .map((recordedTool) => tool(recordedTool.name, recordedTool.description, true)),
    ...server.allowedTools
      .filter((name) => !offered.has(name) && !allowedAndListed.has(name))
      .map((name) => tool(name, '', false)),
  ];
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
    tools: toolsOf(server),
    enabled: server.enabled,
    state: !server.enabled ? 'disabled' : server.refreshError ? 'failing' : 'ready',
    timeoutMs: server.timeoutMs,
    refreshedAt: server.refreshedAt,
    refreshError: server.refreshError,
    createdAt: server.createdAt,
    updatedAt: server.updatedAt,
  };
}

function exists(name: string): ToolServersError {
  return new ToolServersError('server_exists', `a tool server named ${name} exists already`);
}

function notFound(name: string): ToolServersError {
  return new ToolServersError('server_not_found', `no tool server named ${JSON.stringify(name.slice(0, 64))}`);
}
