import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One row per model-gateway request (spec document 3, "Gateway log"). */
@Entity({ schema: 'audit', name: 'llm_gateway_logs' })
@Index('llm_gateway_logs_created_at_idx', ['createdAt', 'id'])
@Index('llm_gateway_logs_virtual_key_id_idx', ['virtualKeyId', 'createdAt'])
// A tenant's page (the caller's tenant in the query); rows without a tenant are the operator's only.
@Index('llm_gateway_logs_tenant_idx', ['tenantId', 'createdAt', 'id'], { where: '"tenant_id" IS NOT NULL' })
export class LlmGatewayLogEntity {
  /** `llmGatewayLogId`. */
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'llm_gateway_logs_pkey' })
  id!: string;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'uuid', nullable: true })
  virtualKeyId!: string | null;

  @Column({ type: 'text', nullable: true })
  clientSessionId!: string | null;

  @Column({ type: 'text', nullable: true })
  clientAgentId!: string | null;

  @Column({ type: 'text', nullable: true })
  apiFlavor!: string | null;

  /** As requested. */
  @Column({ type: 'text', nullable: true })
  modelName!: string | null;

  @Column({ type: 'text', nullable: true })
  resolvedModel!: string | null;

  @Column({ type: 'text', nullable: true })
  provider!: string | null;

  @Column({ type: 'text', nullable: true })
  deployment!: string | null;

  @Column({ type: 'text', nullable: true })
  tier!: string | null;

  @Column({ type: 'boolean', nullable: true })
  stream!: boolean | null;

  @Column({ type: 'boolean', nullable: true })
  success!: boolean | null;

  @Column({ type: 'integer', nullable: true })
  httpStatus!: number | null;

  @Column({ type: 'text', nullable: true })
  errorType!: string | null;

  @Column({ type: 'text', nullable: true })
  errorCode!: string | null;

  @Column({ type: 'text', nullable: true })
  usageStatus!: string | null;

  @Column({ type: 'integer', nullable: true })
  latencyMs!: number | null;

  @Column({ type: 'integer', nullable: true })
  inputTokens!: number | null;

  @Column({ type: 'integer', nullable: true })
  outputTokens!: number | null;

  @Column({ type: 'integer', nullable: true })
  totalTokens!: number | null;

  @Column({ type: 'integer', nullable: true })
  cachedTokens!: number | null;

  @Column({ type: 'integer', nullable: true })
  cacheCreationInputTokens!: number | null;

  @Column({ type: 'integer', nullable: true })
  reasoningTokens!: number | null;

  /** Exact decimal (a string on read); the spec allows a number or a string. */
  @Column({ type: 'numeric', precision: 18, scale: 8, nullable: true })
  costUsd!: string | null;

  @Column({ type: 'text', nullable: true })
  currency!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  metadata!: Record<string, unknown> | null;

  /** The caller's key or token tenant; null: a key of no tenant, or a row from before tenants were recorded. */
  @Column({ type: 'text', nullable: true })
  tenantId!: string | null;
}
