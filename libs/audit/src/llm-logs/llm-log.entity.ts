import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * Spec document 3, "LLM log". `created_at` is the record's `timestamp` (the call's start), which pages,
 * day counts and retention go by; `recorded_at` is its `createdAt` (the call's end).
 */
@Entity({ schema: 'audit', name: 'llm_logs' })
@Index('llm_logs_created_at_idx', ['createdAt', 'id'])
// A tenant's page (the caller's tenant in the query); rows without a tenant are the operator's only.
@Index('llm_logs_tenant_idx', ['tenantId', 'createdAt', 'id'], { where: '"tenant_id" IS NOT NULL' })
export class LlmLogEntity {
  /** `llmLogId`. */
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'llm_logs_pkey' })
  id!: string;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  recordedAt!: Date | null;

  @Column({ type: 'text', nullable: true })
  service!: string | null;

  @Column({ type: 'text', nullable: true })
  operation!: string | null;

  @Column({ type: 'integer', nullable: true })
  durationMs!: number | null;

  @Column({ type: 'text', nullable: true })
  conversationId!: string | null;

  @Column({ type: 'text', nullable: true })
  intentType!: string | null;

  @Column({ type: 'double precision', nullable: true })
  confidenceScore!: number | null;

  /** Tool calls the model asked for: null = not measured, 0 = none. */
  @Column({ type: 'integer', nullable: true })
  toolsUsed!: number | null;

  @Column({ type: 'boolean', nullable: true })
  success!: boolean | null;

  @Column({ type: 'text', nullable: true })
  agentType!: string | null;

  @Column({ type: 'text', nullable: true })
  agentLevel!: string | null;

  @Column({ type: 'text', nullable: true })
  taskComplexity!: string | null;

  @Column({ type: 'text', nullable: true })
  currentMessage!: string | null;

  @Column({ type: 'text', nullable: true })
  contextSummary!: string | null;

  @Column({ type: 'text', nullable: true })
  suggestedApproach!: string | null;

  @Column({ type: 'text', nullable: true })
  conversationGoal!: string | null;

  @Column({ type: 'text', nullable: true })
  finalContent!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  metadata!: Record<string, unknown> | null;

  /** The turn's tenant; null: a turn without one, or written before tenants were recorded. */
  @Column({ type: 'text', nullable: true })
  tenantId!: string | null;
}
