import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One rule that matched one message (docs/admin.md, "Guardrail alerts"). */
@Entity({ schema: 'audit', name: 'guardrail_alerts' })
@Index('guardrail_alerts_created_at_idx', ['createdAt', 'id'])
@Index('guardrail_alerts_tenant_idx', ['tenantId', 'createdAt', 'id'])
@Index('guardrail_alerts_conversation_idx', ['conversationId', 'createdAt', 'id'])
@Index('guardrail_alerts_rule_idx', ['rule', 'createdAt', 'id'])
@Index('guardrail_alerts_severity_idx', ['severity', 'createdAt', 'id'])
export class GuardrailAlertEntity {
  /** `guardrailAlertId`. */
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'guardrail_alerts_pkey' })
  id!: string;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'text' })
  service!: string;

  /** `input`, `output` or `gateway`. */
  @Column({ type: 'text' })
  stage!: string;

  @Column({ type: 'text' })
  rule!: string;

  /** `pattern`, `blocked_terms` or `pii`. */
  @Column({ type: 'text' })
  ruleType!: string;

  /** `low`, `medium` or `high`. */
  @Column({ type: 'text' })
  severity!: string;

  /** `alert`, `redact` or `block`. */
  @Column({ type: 'text' })
  action!: string;

  @Column({ type: 'integer' })
  matchCount!: number;

  /** Null for a private-mode turn. */
  @Column({ type: 'text', nullable: true })
  excerpt!: string | null;

  @Column({ type: 'text', nullable: true })
  conversationId!: string | null;

  @Column({ type: 'text', nullable: true })
  messageId!: string | null;

  @Column({ type: 'text', nullable: true })
  userId!: string | null;

  @Column({ type: 'text', nullable: true })
  tenantId!: string | null;

  /** Stage `gateway`: who called the model gateway, `api-key:<virtualKeyId>` or `client:<clientId>`. */
  @Column({ type: 'text', nullable: true })
  caller!: string | null;
}
