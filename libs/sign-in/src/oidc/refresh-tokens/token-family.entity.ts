import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A refresh-token family: every token descended from one login (the provider's grant). Its row is
 * the lock that redeeming, rotating and revoking take, so that a token is never stored into a family
 * that a concurrent reuse has just revoked.
 */
@Entity({ schema: 'identity', name: 'token_families' })
@Index('token_families_expires_at_idx', ['expiresAt'])
export class TokenFamilyEntity {
  /** The provider's grant id of the login. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'token_families_pkey' })
  id!: string;

  @Column({ type: 'text' })
  clientId!: string;

  @Column({ type: 'uuid' })
  userId!: string;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  /** No token of the family outlives this (the session maximum). */
  @Column({ type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
