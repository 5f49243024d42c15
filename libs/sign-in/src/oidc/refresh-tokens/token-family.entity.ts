import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Its row is the lock redeem, rotate and revoke take, so no token enters a family a concurrent reuse revoked. */
@Entity({ schema: 'identity', name: 'token_families' })
@Index('token_families_expires_at_idx', ['expiresAt'])
export class TokenFamilyEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'token_families_pkey' })
  id!: string;

  @Column({ type: 'text' })
  clientId!: string;

  @Column({ type: 'uuid' })
  userId!: string;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  /** The session maximum. */
  @Column({ type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
