import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The gateway log summed per UTC day and bucket (tenant, model as requested, key, principal), kept by a
 * statement-level trigger on `audit.llm_gateway_logs` (migration AddGatewayUsageRollup1795408200000), so that usage
 * over a range reads days, never log rows. Never decremented: it outlives the log's retention. The two narrower
 * tables below hold the same sums with fewer columns, for the common readings (fill factor 50 on the three, set by
 * the migrations: today's rows are updated by every write of the log).
 */
@Entity({ schema: 'audit', name: 'llm_gateway_usage_days' })
// NULLS NOT DISTINCT (a bucket's columns may be null), which TypeORM cannot declare: the migration writes it.
@Index('llm_gateway_usage_days_bucket_key', ['day', 'tenantId', 'modelName', 'virtualKeyId', 'principal'], {
  unique: true,
})
@Index('llm_gateway_usage_days_tenant_idx', ['tenantId', 'day'], { where: '"tenant_id" IS NOT NULL' })
// A filter the narrower rollups cannot answer reads these (the fine rollup's only other indexes lead by day).
@Index('llm_gateway_usage_days_model_idx', ['modelName', 'day'], { where: '"model_name" IS NOT NULL' })
@Index('llm_gateway_usage_days_key_idx', ['virtualKeyId', 'day'], { where: '"virtual_key_id" IS NOT NULL' })
@Index('llm_gateway_usage_days_principal_idx', ['principal', 'day'], { where: '"principal" IS NOT NULL' })
export class GatewayUsageDayEntity {
  /** A bucket's columns may be null, so they cannot be the primary key. */
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'llm_gateway_usage_days_pkey',
  })
  id!: string;

  @Column({ type: 'date' })
  day!: string;

  @Column({ type: 'text', nullable: true })
  tenantId!: string | null;

  @Column({ type: 'text', nullable: true })
  modelName!: string | null;

  @Column({ type: 'uuid', nullable: true })
  virtualKeyId!: string | null;

  /** The log row's `metadata.principal`: 'api-key:<key name>' or 'client:<clientId>'; the API's `user`. */
  @Column({ type: 'text', nullable: true })
  principal!: string | null;

  @Column({ type: 'bigint', default: 0 })
  requests!: string;

  /** Rows whose `success` is not true. */
  @Column({ type: 'bigint', default: 0 })
  errors!: string;

  @Column({ type: 'bigint', default: 0 })
  inputTokens!: string;

  @Column({ type: 'bigint', default: 0 })
  outputTokens!: string;

  @Column({ type: 'bigint', default: 0 })
  totalTokens!: string;

  @Column({ type: 'bigint', default: 0 })
  cachedTokens!: string;

  /** Exact: a numeric without a scale limit, so that no sum can fail the log's insert. */
  @Column({ type: 'numeric', default: 0 })
  costUsd!: string;
}

/** The same sums per day, tenant and model: what usage by model reads (migration AddGatewayUsageByModelAndCaller1795408200001). */
@Entity({ schema: 'audit', name: 'llm_gateway_usage_model_days' })
@Index('llm_gateway_usage_model_days_bucket_key', ['day', 'tenantId', 'modelName'], { unique: true })
@Index('llm_gateway_usage_model_days_tenant_idx', ['tenantId', 'day'], { where: '"tenant_id" IS NOT NULL' })
export class GatewayUsageModelDayEntity {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'llm_gateway_usage_model_days_pkey',
  })
  id!: string;

  @Column({ type: 'date' })
  day!: string;

  @Column({ type: 'text', nullable: true })
  tenantId!: string | null;

  @Column({ type: 'text', nullable: true })
  modelName!: string | null;

  @Column({ type: 'bigint', default: 0 })
  requests!: string;

  @Column({ type: 'bigint', default: 0 })
  errors!: string;

  @Column({ type: 'bigint', default: 0 })
  inputTokens!: string;

  @Column({ type: 'bigint', default: 0 })
  outputTokens!: string;

  @Column({ type: 'bigint', default: 0 })
  totalTokens!: string;

  @Column({ type: 'bigint', default: 0 })
  cachedTokens!: string;

  @Column({ type: 'numeric', default: 0 })
  costUsd!: string;
}

/** The same sums per day, tenant, key and principal: what usage by key or user reads. */
@Entity({ schema: 'audit', name: 'llm_gateway_usage_caller_days' })
@Index('llm_gateway_usage_caller_days_bucket_key', ['day', 'tenantId', 'virtualKeyId', 'principal'], { unique: true })
@Index('llm_gateway_usage_caller_days_tenant_idx', ['tenantId', 'day'], { where: '"tenant_id" IS NOT NULL' })
export class GatewayUsageCallerDayEntity {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'llm_gateway_usage_caller_days_pkey',
  })
  id!: string;

  @Column({ type: 'date' })
  day!: string;

  @Column({ type: 'text', nullable: true })
  tenantId!: string | null;

  @Column({ type: 'uuid', nullable: true })
  virtualKeyId!: string | null;

  @Column({ type: 'text', nullable: true })
  principal!: string | null;

  @Column({ type: 'bigint', default: 0 })
  requests!: string;

  @Column({ type: 'bigint', default: 0 })
  errors!: string;

  @Column({ type: 'bigint', default: 0 })
  inputTokens!: string;

  @Column({ type: 'bigint', default: 0 })
  outputTokens!: string;

  @Column({ type: 'bigint', default: 0 })
  totalTokens!: string;

  @Column({ type: 'bigint', default: 0 })
  cachedTokens!: string;

  @Column({ type: 'numeric', default: 0 })
  costUsd!: string;
}
