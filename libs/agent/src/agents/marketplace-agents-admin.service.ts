import { randomUUID } from 'node:crypto';
import { agentId, agentInstructions, agentModelConfig, agentName, agentTenant } from './agent.rules';
import { AgentsError } from './agents.errors';
import { type AgentModelConfig, MarketplaceAgentEntity } from './marketplace-agent.entity';
import { type AgentChanges, type AgentFilter, type MarketplaceAgentsRepository } from './marketplace-agents.repository';

export interface AgentFields {
  /** Creation only; a UUID is generated when absent. */
  id?: string;
  name?: string;
  instructions?: string;
  /** Given members are set; a `null` member goes back to the deployment's default. */
  model?: { [K in keyof AgentModelConfig]?: AgentModelConfig[K] | null };
  enabled?: boolean;
  tenantId?: string | null;
}

/** Creating, changing and removing Marketplace agents (`platformctl agents`, the admin panel's stand-in). */
export class MarketplaceAgentsAdminService {
  private readonly now: () => Date;

  constructor(
    private readonly repository: MarketplaceAgentsRepository,
    options: { now?: () => Date } = {},
  ) {
    this.now = options.now ?? (() => new Date());
  }

  list(): Promise<MarketplaceAgentEntity[]> {
    return this.repository.all();
  }

  /** The admin panel's numbered list (`GET /api/v1/admin/marketplace-agents`). */
  page(
    filter: AgentFilter,
    params: { limit: number; offset: number },
  ): Promise<{ items: MarketplaceAgentEntity[]; total: number }> {
    const tenantId = filter.tenantId === undefined ? undefined : agentTenant(filter.tenantId);
    return this.repository.page({ ...filter, tenantId }, params.limit, params.offset);
  }

  async show(id: string): Promise<MarketplaceAgentEntity> {
    const agent = await this.repository.find(agentId(id));
    if (!agent) throw new AgentsError('agent_not_found', `no agent ${id}`);
    return agent;
  }

  async create(fields: AgentFields): Promise<MarketplaceAgentEntity> {
    const now = this.now();
    const agent = Object.assign(new MarketplaceAgentEntity(), {
      id: agentId(fields.id ?? randomUUID()),
      name: agentName(fields.name ?? ''),
      instructions: agentInstructions(fields.instructions ?? ''),
      modelConfig: agentModelConfig(withoutNulls(fields.model ?? {})),
      enabled: fields.enabled ?? true,
      tenantId: fields.tenantId ? agentTenant(fields.tenantId) : null,
      createdAt: now,
      updatedAt: now,
    });
    if (!(await this.repository.insert(agent))) {
      throw new AgentsError(
        'agent_exists',
        `the id ${agent.id} is taken, by an agent or a deleted one (ids are not reused: a new agent would see the old one's conversations)`,
      );
    }
    return agent;
  }

  async update(id: string, fields: Omit<AgentFields, 'id'>): Promise<MarketplaceAgentEntity> {
    const changes: AgentChanges & { modelPatch?: Record<string, unknown> } = {};
    if (fields.name !== undefined) changes.name = agentName(fields.name);
    if (fields.instructions !== undefined) changes.instructions = agentInstructions(fields.instructions);
    if (fields.enabled !== undefined) changes.enabled = fields.enabled;
    if (fields.tenantId !== undefined)
      changes.tenantId = fields.tenantId === null ? null : agentTenant(fields.tenantId);
    if (fields.model !== undefined) {
      const set = agentModelConfig(withoutNulls(fields.model));
      const cleared = Object.entries(fields.model).filter(([, value]) => value === null);
      if (Object.keys(set).length + cleared.length > 0) {
        changes.modelPatch = { ...Object.fromEntries(cleared), ...set };
      }
    }
    if (Object.keys(changes).length === 0)
      throw new AgentsError('nothing_to_update', 'give at least one field to change');
    const updated = await this.repository.update(agentId(id), changes, this.now());
    if (!updated) throw new AgentsError('agent_not_found', `no agent ${id}`);
    return updated;
  }

  /** Gone for every request; its data stays and its id is never reused. Disable it to keep history readable. */
  async delete(id: string): Promise<void> {
    if (!(await this.repository.delete(agentId(id), this.now()))) {
      throw new AgentsError('agent_not_found', `no agent ${id}`);
    }
  }
}

function withoutNulls(config: NonNullable<AgentFields['model']>): AgentModelConfig {
  return Object.fromEntries(Object.entries(config).filter(([, value]) => value !== null && value !== undefined));
}
