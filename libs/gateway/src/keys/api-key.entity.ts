import { Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';

/**
 * A virtual API key of the model gateway. The key itself is shown once at creation; only its
 * SHA-256 is kept (keys are 256 random bits, so a slow hash would add latency and no safety).
 */
@Entity({ schema: 'gateway', name: 'api_keys' })
@Unique('api_keys_key_hash_key', ['keyHash'])
export class ApiKeyEntity {
  /** `virtualKeyId` of the gateway log. */
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'api_keys_pkey' })
  id!: string;

  @Index('api_keys_name_idx')
  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'bytea' })
  keyHash!: Buffer;

  /** The prefix and last four characters, to recognise a key in lists without revealing it. */
  @Column({ type: 'text' })
  keyHint!: string;

  /** Models (names or aliases of the routing table) the key may call; null: every model. */
  @Column({ type: 'text', array: true, nullable: true })
  allowedModels!: string[] | null;

  /** Requests per minute; null: unlimited. */
  @Column({ type: 'integer', nullable: true })
  rpmLimit!: number | null;

  /** Tokens (input and output) per minute; null: unlimited. */
  @Column({ type: 'integer', nullable: true })
  tpmLimit!: number | null;

  /** Hard quota: spend per UTC day in US dollars; null: unlimited. */
  @Column({ type: 'numeric', precision: 14, scale: 4, nullable: true })
  dailyBudgetUsd!: string | null;

  /** CIDR ranges the key may be used from; null: wherever the gateway allows. */
  @Column({ type: 'text', array: true, nullable: true })
  allowedNetworks!: string[] | null;

  /** The tenant the key is issued to: its calls go to that tenant's gateway log; null: the operator's key. */
  @Column({ type: 'uuid', nullable: true })
  tenantId!: string | null;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
