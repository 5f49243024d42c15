import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { type AgentModelConfig, MarketplaceAgentEntity } from './marketplace-agent.entity';

export type AgentChanges = Partial<
  Pick<MarketplaceAgentEntity, 'name' | 'instructions' | 'modelConfig' | 'enabled' | 'tenantId'>
>;

export interface AgentFilter {
  search?: string;
  enabled?: boolean;
  tenantId?: string;
}

/** The only place that queries `agent.marketplace_agents`. */
@Injectable()
export class MarketplaceAgentsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** An agent that has not been deleted. */
  find(id: string): Promise<MarketplaceAgentEntity | null> {
    return this.dataSource.manager.findOne(MarketplaceAgentEntity, { where: { id, deletedAt: IsNull() } });
  }

  /** Agents a service account of `tenantId` cannot name (deleted, or another tenant's), left out of its lists. */
  async unavailableTo(tenantId: string | null): Promise<string[]> {
    const rows = (await this.dataSource.query(
      `SELECT id FROM agent.marketplace_agents
        WHERE deleted_at IS NOT NULL OR (tenant_id IS NOT NULL AND tenant_id IS DISTINCT FROM $1)`,
      [tenantId],
    )) as { id: string }[];
    return rows.map((row) => row.id);
  }

  all(): Promise<MarketplaceAgentEntity[]> {
    return this.dataSource.manager.find(MarketplaceAgentEntity, {
      where: { deletedAt: IsNull() },
      order: { name: 'ASC', id: 'ASC' },
    });
  }

  /** A numbered page of the live agents in name order; `search` is a case-insensitive substring of id or name. */
  async page(
    filter: AgentFilter,
    limit: number,
    offset: number,
  ): Promise<{ items: MarketplaceAgentEntity[]; total: number }> {
    const query = this.dataSource.manager
      .createQueryBuilder(MarketplaceAgentEntity, 'agent')
      .where('agent.deletedAt IS NULL');
    if (filter.search !== undefined) {
      const pattern = `%${filter.search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
      query.andWhere("(agent.id ILIKE :pattern ESCAPE '\\' OR agent.name ILIKE :pattern ESCAPE '\\')", { pattern });
    }
    if (filter.enabled !== undefined) query.andWhere('agent.enabled = :enabled', { enabled: filter.enabled });
    if (filter.tenantId !== undefined) query.andWhere('agent.tenantId = :tenantId', { tenantId: filter.tenantId });
    const [items, total] = await query
      .orderBy('agent.name', 'ASC')
      .addOrderBy('agent.id', 'ASC')
      .take(limit)
      .skip(offset)
      .getManyAndCount();
    return { items, total };
  }

  /** False when the id is taken, live or deleted; one statement, so two creations of one id cannot both succeed. */
  async insert(agent: MarketplaceAgentEntity): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO agent.marketplace_agents
         (id, name, instructions, model_config, enabled, tenant_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [agent.id, agent.name, agent.instructions, agent.modelConfig, agent.enabled, agent.tenantId, agent.createdAt],
    );
    return rows.length === 1;
  }

  /** Merges a model configuration into the stored one (a `null` member removes it); null when no such agent. */
  async update(id: string, changes: AgentChanges & { modelPatch?: Record<string, unknown> }, now: Date) {
    const sets: string[] = ['updated_at = $2'];
    const values: unknown[] = [id, now];
    const set = (column: string, value: unknown) => {
      values.push(value);
      sets.push(`${column} = $${values.length}`);
    };
    if (changes.name !== undefined) set('name', changes.name);
    if (changes.instructions !== undefined) set('instructions', changes.instructions);
    if (changes.enabled !== undefined) set('enabled', changes.enabled);
    if (changes.tenantId !== undefined) set('tenant_id', changes.tenantId);
    if (changes.modelPatch !== undefined) {
      values.push(changes.modelPatch);
      sets.push(`model_config = jsonb_strip_nulls(model_config || $${values.length}::jsonb)`);
    }
    const [rows] = (await this.dataSource.query(
      `UPDATE agent.marketplace_agents SET ${sets.join(', ')} WHERE id = $1 AND deleted_at IS NULL RETURNING id`,
      values,
    )) as [unknown[], number];
    return rows.length === 1 ? this.find(id) : null;
  }

  /** Marks the agent deleted (and disabled); the row stays, so that its id is never given again. */
  async delete(id: string, at: Date): Promise<boolean> {
    const [, count] = (await this.dataSource.query(
      `UPDATE agent.marketplace_agents SET deleted_at = $2, enabled = false, updated_at = $2
        WHERE id = $1 AND deleted_at IS NULL`,
      [id, at],
    )) as [unknown, number];
    return count === 1;
  }
}

export type { AgentModelConfig };
