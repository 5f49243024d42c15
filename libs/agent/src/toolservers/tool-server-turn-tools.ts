import { type ClaimedTurn } from '@fed/conversations';
import { type Logger } from '@fed/observability';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type AgentTool } from '../runtime/tools/agent-tool';
import { ToolBox } from '../runtime/tools/tool-box';
import { toolSchemaValidator } from '../runtime/tools/tool-schema-validators';
import { type TurnTools } from '../runtime/turn/turn-answerer';
import { ExternalTool, type ServerSession } from './external-tool';
import { type ToolServerEndpoint, connectToolServer } from './mcp-connection';
import { UI_MAX_BYTES } from './mcp-ui';
import { type AnswerLimits, answerLimits } from './tool-server-fetch';
import { ToolServerNetwork } from './tool-server-network';
import { type ToolServerEntity } from './tool-server.entity';
import { type ToolServerRepository } from './tool-server.repository';
import { agentToolName } from './tool-server.rules';
import { type ToolServerSecrets } from './tool-server-secrets';

export interface TurnToolsOptions {
  /** Largest UI resource HTML shown (UTF-8 bytes); `UI_MAX_BYTES` by default. */
  uiMaxBytes?: number;
  /** Where servers may be connected to: public addresses only by default. */
  network?: ToolServerNetwork;
}

/** Built-ins plus enabled servers' recorded allowed tools; each server connects at first call, closes at turn end. */
export class ToolServerTurnTools implements TurnTools {
  private readonly uiMaxBytes?: number;
  private readonly network: ToolServerNetwork;
  private readonly limits: AnswerLimits;

  constructor(
    private readonly builtIn: readonly AgentTool<never>[],
    private readonly repository: Pick<ToolServerRepository, 'enabled'>,
    private readonly secrets: ToolServerSecrets | undefined,
    private readonly logger: Logger,
    options: TurnToolsOptions = {},
  ) {
    this.uiMaxBytes = options.uiMaxBytes;
    this.network = options.network ?? ToolServerNetwork.of(false);
    this.limits = answerLimits(options.uiMaxBytes ?? UI_MAX_BYTES);
  }

  async open(turn: ClaimedTurn, _signal: AbortSignal): Promise<{ toolbox: ToolBox; close(): Promise<void> }> {
    const builtIn = this.builtIn.filter((tool) => tool.offered?.(turn.options) ?? true);
    // A turn without tools (agentMode false) connects to nothing and reads no registry.
    if (!turn.options.agentMode) return { toolbox: new ToolBox(builtIn), close: async () => undefined };
    const servers = await this.repository.enabled();
    const sessions = servers.map((server) => new LazySession(server, this.secrets, this.network, this.limits));
    const candidates: ExternalTool[] = [];
    for (const session of sessions) {
      const { server } = session;
      for (const recorded of server.tools) {
        if (!server.allowedTools.includes(recorded.name)) continue;
        const name = agentToolName(server.name, recorded.name);
        if (!name) {
          this.logger.warn(
            { server: server.name, tool: recorded.name },
            'external tool skipped: its agent name would not be valid',
          );
          continue;
        }
        candidates.push(new ExternalTool(name, session, recorded, this.logger, this.uiMaxBytes));
      }
    }
    return {
      toolbox: new ToolBox([...builtIn, ...this.compiling(this.unambiguous(candidates))]),
      close: async () => {
        await Promise.all(sessions.map((session) => session.close()));
      },
    };
  }

  /** Only tools whose schema compiles: a bad stored schema skips its tool instead of failing every turn. */
  private compiling(tools: readonly ExternalTool[]): AgentTool<never>[] {
    return tools.flatMap((tool) => {
      try {
        toolSchemaValidator(tool.parameters);
        return [tool as unknown as AgentTool<never>];
      } catch (error) {
        this.logger.warn({ tool: tool.name, err: error }, 'external tool skipped: its input schema does not compile');
        return [];
      }
    });
  }

  /**
   * The external tools whose agent name nothing else has. `a__b` + `c` and `a` + `b__c` are both
   * `a__b__c`: neither is offered (a call must never reach the wrong server), nor one named like a built-in.
   */
  private unambiguous(tools: readonly ExternalTool[]): ExternalTool[] {
    const taken = new Set(this.builtIn.map((tool) => tool.name));
    const claims = new Map<string, number>();
    for (const tool of tools) claims.set(tool.name, (claims.get(tool.name) ?? 0) + 1);
    return tools.flatMap((tool) => {
      if (!taken.has(tool.name) && claims.get(tool.name) === 1) return [tool];
      this.logger.warn({ tool: tool.name }, 'external tool skipped: another tool has the same agent name');
      return [];
    });
  }
}

/** One server's MCP client for one turn: connected at the first call; a failed connect is tried again at the next. */
class LazySession implements ServerSession {
  private connecting?: Promise<Client>;
  private closed = false;
  // Ends a connection still in progress when the turn ends: closing never waits for the server.
  private readonly ended = new AbortController();

  constructor(
    readonly server: ToolServerEntity,
    private readonly secrets: ToolServerSecrets | undefined,
    private readonly network: ToolServerNetwork,
    private readonly limits: AnswerLimits,
  ) {}

  get name(): string {
    return this.server.name;
  }

  get timeoutMs(): number {
    return this.server.timeoutMs;
  }

  client(signal: AbortSignal): Promise<Client> {
    if (this.closed) return Promise.reject(new Error('the turn has ended'));
    if (!this.connecting) {
      const connectSignal = AbortSignal.any([signal, this.ended.signal]);
      this.connecting = endpointOf(this.server, this.secrets, this.network).then((endpoint) =>
        connectToolServer(endpoint, connectSignal, this.limits),
      );
      this.connecting.catch(() => {
        this.connecting = undefined;
      });
    }
    return this.connecting;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.ended.abort(new Error('the turn has ended'));
    const client = await this.connecting?.catch(() => undefined);
    await client?.close().catch(() => undefined);
  }
}

/** How to reach a registered server; its auth header opened. */
export async function endpointOf(
  server: ToolServerEntity,
  secrets: ToolServerSecrets | undefined,
  network: ToolServerNetwork,
): Promise<ToolServerEndpoint> {
  let authHeader: string | undefined;
  if (server.authHeader) {
    authHeader = await secrets?.open(server.authHeader, server.id);
    if (authHeader === undefined) {
      throw new Error(
        secrets
          ? 'its auth header cannot be decrypted with this TOOLSERVER_SECRET_KEY'
          : 'its auth header cannot be decrypted: TOOLSERVER_SECRET_KEY is not set',
      );
    }
  }
  return { name: server.name, url: server.url, authHeader, timeoutMs: server.timeoutMs, network };
}
