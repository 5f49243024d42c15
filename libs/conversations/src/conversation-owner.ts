import { type AccessTokenPrincipal, principalOf } from '@fed/auth';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { isAgentId } from '@fed/contracts';
import {
  type ExecutionContext,
  Inject,
  Injectable,
  Optional,
  type PipeTransform,
  createParamDecorator,
} from '@nestjs/common';
import { type IncomingHttpHeaders } from 'node:http';
import { OwnerError } from './conversation-owner.errors';

/** The owner of every row a request touches (document 2: another user's data is a 404). */
export interface ConversationOwner {
  /** The token's subject; Marketplace: `<sub>/<agentId>` (ids hold no `/`), so each agent has its own data. */
  userId: string;
  tenantId: string | null;
  /** Marketplace edition: the agent the request names. */
  agentId?: string;
}

/** One owner, or (Marketplace, no agent named) an account across its agents, minus those it can no longer name. */
export type ListOwner = ConversationOwner | AgentsOwner;

export interface AgentsOwner {
  acrossAgents: true;
  /** The service account's `sub`. */
  accountId: string;
  tenantId: string | null;
  /** Owner keys (`<accountId>/<agentId>`) whose rows are left out. */
  hiddenOwners: readonly string[];
}

export function isAcrossAgents(owner: ListOwner): owner is AgentsOwner {
  return 'acrossAgents' in owner;
}

/** SaaS: the token's subject and tenant. */
export function ownerOf(principal: AccessTokenPrincipal): ConversationOwner {
  return { userId: principal.subject, tenantId: principal.tenant?.id ?? null };
}

/** What the chat service needs to know of a Marketplace agent (the agent lib owns the table). */
export interface MarketplaceAgentRef {
  id: string;
  enabled: boolean;
  /** Null: every tenant's service accounts may use it. */
  tenantId: string | null;
}

export interface MarketplaceAgentLookup {
  find(agentId: string): Promise<MarketplaceAgentRef | null>;
  /** Ids of the agents a service account of `tenantId` may not name: deleted ones, and other tenants'. */
  unavailableTo(tenantId: string | null): Promise<string[]>;
}

/** Provided (globally) by the agent lib's MarketplaceAgentsModule. */
export const MARKETPLACE_AGENTS = Symbol.for('fed.conversations.MarketplaceAgents');

export const AGENT_ID_HEADER = 'x-agent-id';

export interface OwnerOptions {
  /** The chat request: `agentId` may also come in the body, and the agent must be enabled. */
  startsTurn?: boolean;
  /** A list (conversations, files): with no agent named, the service account's items across its agents. */
  list?: boolean;
}

/**
 * Marketplace: service-account tokens only (403 otherwise); the agent is named by `X-Agent-Id` or the chat request's
 * `agentId` (equal when both are sent); a missing or foreign agent is a 400; a disabled agent takes no new turn.
 */
@Injectable()
export class ConversationOwners {
  private readonly marketplace: boolean;

  constructor(
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
    @Optional() @Inject(MARKETPLACE_AGENTS) private readonly agents?: MarketplaceAgentLookup,
  ) {
    this.marketplace = config.edition === 'marketplace';
  }

  async of(
    principal: AccessTokenPrincipal,
    headers: IncomingHttpHeaders,
    body: unknown,
    options: OwnerOptions = {},
  ): Promise<ConversationOwner> {
    return (await this.resolve(principal, headers, body, { ...options, list: false })) as ConversationOwner;
  }

  /** A list's owner: as `of`, but with no agent named, the service account's items across its agents. */
  listOwner(principal: AccessTokenPrincipal, headers: IncomingHttpHeaders): Promise<ListOwner> {
    return this.resolve(principal, headers, undefined, { list: true });
  }

  private async resolve(
    principal: AccessTokenPrincipal,
    headers: IncomingHttpHeaders,
    body: unknown,
    options: OwnerOptions,
  ): Promise<ListOwner> {
    if (!this.marketplace) return ownerOf(principal);
    // Document 2 is the Marketplace admin panel's: its service accounts call it, not people who sign in.
    if (!principal.isServiceAccount) {
      throw new OwnerError(
        'service_account_required',
        'the Marketplace edition serves service accounts (POST /api/v1/auth/external-service-token) only',
      );
    }
    if (!this.agents) throw new Error('the Marketplace edition needs MarketplaceAgentsModule (no agent lookup)');
    const tenantId = principal.tenant?.id ?? null;
    const header = headers[AGENT_ID_HEADER];
    if (options.list && (header === undefined || header === '')) {
      const hidden = await this.agents.unavailableTo(tenantId);
      return {
        acrossAgents: true,
        accountId: principal.subject,
        tenantId,
        hiddenOwners: hidden.map((agentId) => `${principal.subject}/${agentId}`),
      };
    }
    const named = agentNamed(header, options.startsTurn ? bodyAgentId(body) : undefined);
    const agent = isAgentId(named) ? await this.agents.find(named) : null;
    if (!agent || (agent.tenantId !== null && agent.tenantId !== tenantId)) {
      throw new OwnerError('agent_not_found', `no agent ${JSON.stringify(named.slice(0, 100))}`);
    }
    if (options.startsTurn && !agent.enabled) {
      throw new OwnerError('agent_disabled', `the agent ${agent.id} is disabled: it takes no new turns`);
    }
    return { userId: `${principal.subject}/${agent.id}`, tenantId, agentId: agent.id };
  }
}

function bodyAgentId(body: unknown): unknown {
  return typeof body === 'object' && body !== null ? (body as { agentId?: unknown }).agentId : undefined;
}

function agentNamed(header: string | string[] | undefined, body: unknown): string {
  if (body !== undefined && typeof body !== 'string') {
    throw new OwnerError('invalid_agent_id', 'agentId must be a string');
  }
  const fromHeader = Array.isArray(header) ? header.join(', ') : header;
  const fromBody = body;
  if (!fromHeader && !fromBody) {
    throw new OwnerError('agent_id_required', 'name the agent: X-Agent-Id header (or agentId in a chat request)');
  }
  if (fromHeader && fromBody && fromHeader !== fromBody) {
    throw new OwnerError('agent_id_mismatch', 'X-Agent-Id and agentId name different agents');
  }
  return (fromHeader || fromBody) as string;
}

interface OwnerRequest {
  headers: IncomingHttpHeaders;
  body?: unknown;
}

/** Resolves `@Owner()`: the request's principal (set by the guard) and its agent, through ConversationOwners. */
@Injectable()
export class OwnerPipe implements PipeTransform<{ request: OwnerRequest; options: OwnerOptions }> {
  private readonly owners: ConversationOwners;

  constructor(
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
    @Optional() @Inject(MARKETPLACE_AGENTS) agents?: MarketplaceAgentLookup,
  ) {
    this.owners = new ConversationOwners(config, agents);
  }

  transform({ request, options }: { request: OwnerRequest; options: OwnerOptions }): Promise<ListOwner> {
    const principal = principalOf(request);
    if (!principal) throw new Error('@Owner() on a route without a token');
    if (options.list) return this.owners.listOwner(principal, request.headers);
    return this.owners.of(principal, request.headers, request.body, options);
  }
}

const OwnerSource = createParamDecorator((options: OwnerOptions | undefined, context: ExecutionContext) => ({
  request: context.switchToHttp().getRequest<OwnerRequest>(),
  options: options ?? {},
}));

/** The `ConversationOwner` of the request (see ConversationOwners); `{ list: true }`: its `ListOwner`. */
export const Owner = (options?: OwnerOptions): ParameterDecorator => OwnerSource(options, OwnerPipe);
