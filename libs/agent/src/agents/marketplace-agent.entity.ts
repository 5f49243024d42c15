import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** How a Marketplace agent calls its model; absent fields take the deployment's defaults. */
export interface AgentModelConfig {
  /** A model name or alias of the model gateway; absent: `AGENT_MODEL`. */
  model?: string;
  /** 0-2. */
  temperature?: number;
  maxOutputTokens?: number;
}

/** A Marketplace agent (`EDITION=marketplace`), named by `agentId`; managed here by `platformctl agents`. */
@Entity({ schema: 'agent', name: 'marketplace_agents' })
@Index('marketplace_agents_name_idx', ['name', 'id'])
export class MarketplaceAgentEntity {
  /** `agentId`: 1-64 characters of A-Z, a-z, 0-9, `_` and `-`. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'marketplace_agents_pkey' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  /** The agent's system prompt, after the platform's own lines. */
  @Column({ type: 'text' })
  instructions!: string;

  @Column({ type: 'jsonb' })
  modelConfig!: AgentModelConfig;

  /** A disabled agent takes no new turn (400 `agent_disabled`); its conversations stay readable. */
  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  /** Set: only service accounts of this tenant may use the agent; null: every one of the deployment. */
  @Column({ type: 'uuid', nullable: true })
  tenantId!: string | null;

  /** Set by `agents delete`; the id is never reused, since a new agent would inherit the kept conversations. */
  @Column({ type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  updatedAt!: Date;
}

export const marketplaceAgentEntities = [MarketplaceAgentEntity];
