import { AuditAction, AuditDetails } from '@fed/audit';
import { MarketplaceOnly, Scopes } from '@fed/auth';
import { numberedPageEnvelope, toNumberedPageParams } from '@fed/contracts';
import { Body, Controller, Delete, Get, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import {
  AgentIdParams,
  CreateMarketplaceAgentBody,
  ListMarketplaceAgentsQuery,
  type MarketplaceAgentDeletedResponse,
  type MarketplaceAgentListResponse,
  type MarketplaceAgentResponse,
  UpdateMarketplaceAgentBody,
  toMarketplaceAgentResponse,
} from './marketplace-agents-admin.dto';
import { type AgentFields, MarketplaceAgentsAdminService } from './marketplace-agents-admin.service';

// The Marketplace admin panel's agents (docs/marketplace.md): served in that edition only (404 in SaaS before any
// token is read), to the platform operator (platform:manage), over the service `platformctl agents` calls.
// Audit rows name the agent and the fields given, never the instructions' text.

type AgentBody = CreateMarketplaceAgentBody | UpdateMarketplaceAgentBody;

function fieldsOf(body: AgentBody): Omit<AgentFields, 'id'> {
  const { name, instructions, model, temperature, maxOutputTokens, enabled, tenantId } = body;
  const modelFields = { model, temperature, maxOutputTokens };
  const given = Object.entries(modelFields).filter(([, value]) => value !== undefined);
  return {
    name,
    instructions,
    enabled,
    tenantId,
    model: given.length > 0 ? Object.fromEntries(given) : undefined,
  };
}

function changedFields(body: object): { fields: string[] } {
  return {
    fields: Object.entries(body)
      .filter(([, value]) => value !== undefined)
      .map(([key]) => key)
      .sort(),
  };
}

@MarketplaceOnly()
@Controller('api/v1/admin/marketplace-agents')
@Scopes('platform:manage')
export class MarketplaceAgentsAdminController {
  constructor(@Inject(MarketplaceAgentsAdminService) private readonly agents: MarketplaceAgentsAdminService) {}

  /** Live agents in name order (deleted ones are never listed). */
  @Get()
  async list(@Query() query: ListMarketplaceAgentsQuery): Promise<MarketplaceAgentListResponse> {
    const params = toNumberedPageParams(query);
    const enabled = query.enabled === undefined ? undefined : query.enabled === 'true';
    const { items, total } = await this.agents.page(
      { search: query.search, enabled, tenantId: query.tenantId },
      params,
    );
    return { agents: items.map(toMarketplaceAgentResponse), ...numberedPageEnvelope(params, total) };
  }

  @Get(':agentId')
  async get(@Param() { agentId }: AgentIdParams): Promise<MarketplaceAgentResponse> {
    return toMarketplaceAgentResponse(await this.agents.show(agentId));
  }

  /** 409 when the id is taken, by a live agent or a deleted one (ids are never reused). */
  @Post()
  @AuditAction('marketplace/agents/create', 'create')
  async create(
    @Body() body: CreateMarketplaceAgentBody,
    @AuditDetails() audit: AuditDetails,
  ): Promise<MarketplaceAgentResponse> {
    audit.add(changedFields(body));
    const agent = await this.agents.create({ id: body.agentId, ...fieldsOf(body) });
    audit.add({ agentId: agent.id });
    return toMarketplaceAgentResponse(agent);
  }

  @Patch(':agentId')
  @AuditAction('marketplace/agents/update', 'update')
  async update(
    @Param() { agentId }: AgentIdParams,
    @Body() body: UpdateMarketplaceAgentBody,
    @AuditDetails() audit: AuditDetails,
  ): Promise<MarketplaceAgentResponse> {
    audit.add({ agentId, ...changedFields(body), ...(body.enabled === undefined ? {} : { enabled: body.enabled }) });
    return toMarketplaceAgentResponse(await this.agents.update(agentId, fieldsOf(body)));
  }

  /** Marked deleted, as `platformctl agents delete`: gone for every request, its id never given again. */
  @Delete(':agentId')
  @AuditAction('marketplace/agents/delete', 'delete')
  async delete(@Param() { agentId }: AgentIdParams): Promise<MarketplaceAgentDeletedResponse> {
    await this.agents.delete(agentId);
    return { agentId, deleted: true };
  }
}
