import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

export const accountTokenPurposes = ['email_verification', 'password_reset'] as const;
export type AccountTokenPurpose = (typeof accountTokenPurposes)[number];

/** Only the SHA-256 is stored; rows outlive use and expiry so a late click reads "used" or "expired", not "unknown". */
@Entity({ schema: 'identity', name: 'account_tokens' })
@Check('account_tokens_purpose', `"purpose" IN ('email_verification', 'password_reset')`)
@Index('account_tokens_expires_at_idx', ['expiresAt'])
export class AccountTokenEntity {
  /** SHA-256 of the token, hex. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'account_tokens_pkey' })
  tokenHash!: string;

  @Index('account_tokens_user_id_idx')
  @Column({ type: 'uuid' })
  userId!: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'account_tokens_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'text' })
  purpose!: AccountTokenPurpose;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  expiresAt!: Date;

  /** Set once, by the one statement that consumes the token. */
  @Column({ type: 'timestamptz', nullable: true })
  usedAt!: Date | null;
}
