import { Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';

/** Only the key's SHA-256 is kept: keys are 256 random bits, so a slow hash adds latency and no safety. */
@Entity({ schema: 'gateway', name: 'api_keys' })
@Unique('api_keys_key_hash_key', ['keyHash'])
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'api_keys_pkey' })
  id!: string;

  @Index('api_keys_name_idx')
  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'bytea' })
  keyHash!: Buffer;

  /** Prefix and last four characters, to recognise a key without revealing it. */
  @Column({ type: 'text' })
  keyHint!: string;

  /** Names or aliases of the routing table; null: every model. */
  @Column({ type: 'text', array: true, nullable: true })
  allowedModels!: string[] | null;

  @Column({ type: 'integer', nullable: true })
  rpmLimit!: number | null;

  /** Input and output tokens; null: unlimited. */
  @Column({ type: 'integer', nullable: true })
  tpmLimit!: number | null;

  /** US dollars per UTC day; null: unlimited. */
  @Column({ type: 'numeric', precision: 14, scale: 4, nullable: true })
  dailyBudgetUsd!: string | null;

  @Column({ type: 'text', array: true, nullable: true })
  allowedNetworks!: string[] | null;

  /** Its calls go to this tenant's gateway log; null: the operator's key. */
  @Column({ type: 'uuid', nullable: true })
  tenantId!: string | null;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
